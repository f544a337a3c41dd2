"""The tournament service's MQTT side: subscribes to every table's records and status, hands
each message to :class:`Service` and publishes its requests (``resend``, ``assign``).

A persistent session (fixed client id, ``clean_session`` false, QoS 1) makes the broker keep
the boxes' messages while the service is down. Messages are acknowledged to the broker by hand,
only once they are in the tournament record: a writer thread takes what arrived meanwhile (up
to ``BATCH``) and records it in one transaction, then acknowledges each.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from typing import Any

from referee.box.publish import broker_address
from referee.errors import ConfigError
from referee.tournament.messages import PREFIX
from referee.tournament_service.service import Service

log = logging.getLogger("referee.tournament.broker")

CLIENT_ID = "referee-tournament"
#: messages recorded in one transaction at most
BATCH = 500


class BrokerLink:
    def __init__(self, service: Service, url: str, username: str, password_file: Path | None,
                 ca_file: Path | None = None, client_id: str = CLIENT_ID) -> None:
        from paho.mqtt.client import Client, MQTTv311
        from paho.mqtt.enums import CallbackAPIVersion

        self.service = service
        self.host, self.port, tls = broker_address(url)
        self.connected = threading.Event()
        self.client = Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                             clean_session=False, protocol=MQTTv311, manual_ack=True)
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.writer = threading.Thread(target=self._write_loop, name="tournament-writer", daemon=True)
        self.stopping = threading.Event()
        password = None
        if password_file is not None:
            try:
                password = password_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"{password_file}: cannot read the broker password: "
                                  f"{exc.strerror or exc}") from exc
        self.client.username_pw_set(username, password)
        if tls:
            self.client.tls_set(ca_certs=str(ca_file) if ca_file else None)
        self.client.reconnect_delay_set(min_delay=1, max_delay=10)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        service.send = self.publish

    def start(self) -> None:
        self.writer.start()
        self.client.connect_async(self.host, self.port, keepalive=15)
        self.client.loop_start()

    def stop(self) -> None:
        self.stopping.set()
        self.writer.join(5)
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, payload: bytes, retain: bool) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.error("the broker refused the tournament service: %s", reason)
            return
        client.subscribe([(f"{PREFIX}/+/record", 1), (f"{PREFIX}/+/status", 1)])
        self.connected.set()
        log.info("connected to the broker %s:%d", self.host, self.port)
        self.service.changed(repush=True)  # a restarted broker may have lost the retained ones

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        log.warning("lost the broker (%s); reconnecting", reason)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        self.inbox.put(msg)

    def _write_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                batch = [self.inbox.get(timeout=0.2)]
            except queue.Empty:
                continue
            while len(batch) < BATCH:
                try:
                    batch.append(self.inbox.get_nowait())
                except queue.Empty:
                    break
            try:
                self.service.handle_batch([(m.topic, m.payload) for m in batch])
            except Exception:  # never let one bad batch stop the service
                log.exception("%d messages not handled", len(batch))
            for m in batch:  # recorded (or refused for good): the broker may forget them
                self.client.ack(m.mid, m.qos)
