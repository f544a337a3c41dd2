"""The deck exchange's enrolment file follows the deck: the organiser registers each pair's
deck with its file (checked by the enrolment reader), the service sends it to the table where
that deck plays (retained, its sha256 and size in the assignment), the box checks it and
switches its recogniser to it between two frames; a bad file is refused, the box keeps the
enrolment it had and says so in its status."""

from __future__ import annotations

import hashlib
import io
import json
import queue
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.box.deck_file import DeckFile, DeckFileError, DeckReceiver
from referee.box.run import use_deck
from referee.box.vision_feed import VisionFeed
from referee.errors import ConfigError
from referee.recognition import CardClassifier
from referee.recognition.enrollment import Enrollment
from referee.recognition.views import LIVE_VIEWS
from referee.tournament import Entrant, Knockout, Register, Start
from referee.tournament.messages import (
    MAX_DECK_FILE_BYTES,
    Assignment,
    DeckReport,
    StatusMessage,
    topic,
)
from referee.tournament_service.broker import BrokerLink
from referee.tournament_service.config import load_service_config
from referee.tournament_service.service import Service
from referee.tournament_service.store import TournamentStore
from tournament.mosquitto import Mosquitto, mosquitto  # noqa: F401  (the fixture)
from tournament.test_real_broker import publisher, wait_until

Sent = list[tuple[str, bytes, bool]]


def enrollment_file(path: Path, seed: int = 0, model_sha256: str = "0" * 64, deck: str = "italian",
                    codes: tuple[str, ...] = ("coppe_1", "coppe_2", "coppe_3"), dim: int = 16) -> bytes:
    rng = np.random.default_rng(seed)
    protos = rng.normal(size=(len(codes), dim)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    Enrollment(deck, codes, protos, model_sha256, weight=0.7, scale=20.0).save(path)
    return path.read_bytes()


def assignment(data: bytes, owner: str = "p2") -> Assignment:
    return Assignment(1, "R1-1", "Tavolo 1: A/B - C/D", (("N+S", "A/B"), ("W+E", "C/D")), owner,
                      f"/decks/{owner}.npz", 1, "briscola-4", hashlib.sha256(data).hexdigest(), len(data))


def tampered(data: bytes) -> bytes:
    """``data`` with one byte changed on the way."""
    return data[:100] + bytes([data[100] ^ 0xFF]) + data[101:]


def pickled_npz() -> bytes:
    """An .npz whose array holds Python objects: loading it would unpickle (run code)."""
    out = io.BytesIO()
    np.savez(out, deck=np.array(["italian"], dtype=object))
    return out.getvalue()


# --- the box's receiver ------------------------------------------------------------------
def test_the_file_is_taken_whichever_comes_first_assignment_or_file(tmp_path: Path) -> None:
    data = enrollment_file(tmp_path / "club.npz")
    first = DeckReceiver(tmp_path / "a")
    assert first.expect(assignment(data)) is None  # the file is on its way
    deck = first.received(data)
    assert isinstance(deck, DeckFile) and deck.owner == "p2"
    assert deck.path.read_bytes() == data and deck.path.parent == tmp_path / "a"
    assert deck.enrollment.codes == ("coppe_1", "coppe_2", "coppe_3")
    second = DeckReceiver(tmp_path / "b")
    assert second.received(data) is None  # no assignment yet: it names the file to take
    assert isinstance(second.expect(assignment(data)), DeckFile)
    assert second.expect(assignment(data)) is None  # heard again after a reconnect: nothing new


def test_the_previous_decks_file_is_waited_over_not_refused(tmp_path: Path) -> None:
    old = enrollment_file(tmp_path / "old.npz", seed=1)
    new = enrollment_file(tmp_path / "new.npz", seed=2)
    receiver = DeckReceiver(tmp_path / "decks")
    receiver.expect(assignment(old, "p1"))
    assert isinstance(receiver.received(old), DeckFile)
    assert receiver.expect(assignment(new, "p3")) is None  # the retained file is still p1's
    deck = receiver.received(new)
    assert deck is not None and deck.owner == "p3" and deck.sha256 == hashlib.sha256(new).hexdigest()


def test_the_next_decks_file_heard_before_its_assignment_is_taken_when_it_comes(tmp_path: Path) -> None:
    """The service sends the file, then the assignment: for a moment the file heard is not
    the assignment's (the previous one's). That is no refusal."""
    old = enrollment_file(tmp_path / "old.npz", seed=1)
    new = enrollment_file(tmp_path / "new.npz", seed=2)
    receiver = DeckReceiver(tmp_path / "decks")
    receiver.expect(assignment(old, "p1"))
    assert receiver.received(old) is not None
    assert receiver.received(new) is None  # before its assignment
    deck = receiver.expect(assignment(new, "p3"))
    assert deck is not None and deck.owner == "p3"
    assert receiver.overdue(10.0, now=10**9) is None  # nothing to report


def test_a_file_that_is_not_the_assignments_is_not_taken_and_reported_once_overdue(tmp_path: Path) -> None:
    good = enrollment_file(tmp_path / "club.npz")
    receiver = DeckReceiver(tmp_path / "decks")
    receiver.expect(assignment(good))
    assert receiver.received(tampered(good)) is None
    assert receiver.overdue(10.0) is None  # the right one may still come
    late = receiver.overdue(10.0, now=10**9)
    assert late is not None and "not the assignment's after 10 s" in late.reason
    assert late.sha256 == hashlib.sha256(good).hexdigest()
    assert receiver.overdue(10.0, now=10**9) is None  # told once
    assert not (tmp_path / "decks").exists() or not list((tmp_path / "decks").iterdir())


def test_a_file_too_big_is_refused_before_it_is_kept(tmp_path: Path) -> None:
    good = enrollment_file(tmp_path / "club.npz")
    receiver = DeckReceiver(tmp_path / "decks")
    receiver.expect(assignment(good))
    with pytest.raises(DeckFileError, match="more than the"):
        receiver.received(b"\0" * (MAX_DECK_FILE_BYTES + 1))
    assert receiver.data is None and not (tmp_path / "decks").exists()


@pytest.mark.parametrize(("name", "bad", "reason"), [
    ("cut short", lambda good: good[: len(good) // 2], "cut short"),
    ("a pickle inside", lambda good: pickled_npz(), "never unpickled"),
    ("not an enrolment", lambda good: _npz(x=np.zeros(3)), "no 'deck' array"),
])
def test_a_bad_file_with_a_matching_checksum_is_refused_and_not_kept(tmp_path: Path, name: str, bad: Any,
                                                                    reason: str) -> None:
    """The checksum only says the file is the one the service sent: what it holds is checked
    by the enrolment reader all the same (never unpickled)."""
    data = bad(enrollment_file(tmp_path / "club.npz"))
    receiver = DeckReceiver(tmp_path / "decks")
    receiver.expect(assignment(data))
    with pytest.raises(DeckFileError, match=reason):
        receiver.received(data)
    assert list((tmp_path / "decks").iterdir()) == []  # nothing left behind, not even a tmp file


def _npz(**arrays: Any) -> bytes:
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def test_pickled_npz_really_holds_an_object_array() -> None:
    with zipfile.ZipFile(io.BytesIO(pickled_npz())) as z:
        assert z.namelist() == ["deck.npy"]


# --- the recogniser switches, or keeps what it has ----------------------------------------
class _Reports:
    def __init__(self) -> None:
        self.reports: list[tuple[str, str | None]] = []

    def report_deck(self, sha256: str, error: str | None) -> None:
        self.reports.append((sha256, error))


def _feed(classifier: CardClassifier) -> VisionFeed:
    class Pipeline:
        def __init__(self) -> None:
            self.classifier, self.cache = classifier, {"stale": "read"}

    class Vision:
        pipeline, tracker = Pipeline(), None

    return VisionFeed(source=None, vision=Vision())


def test_the_recogniser_switches_to_a_deck_made_for_its_model_and_keeps_its_own_otherwise(tmp_path: Path) -> None:
    clf = CardClassifier.load("italian", threads=1, views=LIVE_VIEWS)  # as the box loads it
    feed = _feed(clf)
    labels = clf.labels[:3]
    good_path, bad_path = tmp_path / "good.npz", tmp_path / "bad.npz"
    enrollment_file(good_path, model_sha256=clf.model_sha256, codes=labels, dim=clf.info.embedding_dim)
    enrollment_file(bad_path, model_sha256="f" * 64, codes=labels, dim=clf.info.embedding_dim)
    good = DeckFile("p1", "a" * 64, good_path, Enrollment.load(good_path))
    bad = DeckFile("p2", "b" * 64, bad_path, Enrollment.load(bad_path))
    reports = _Reports()

    use_deck(feed, reports, good)
    assert clf.enrollment is good.enrollment and feed.vision.pipeline.cache == {}
    use_deck(feed, reports, bad)  # made with another model: refused, the good one stays
    assert clf.enrollment is good.enrollment
    assert reports.reports[0] == ("a" * 64, None)
    assert reports.reports[1][0] == "b" * 64 and "another model" in str(reports.reports[1][1])


# --- the service: registration, what it sends, the box's report ---------------------------
def test_registration_refuses_a_file_that_is_not_an_enrolment_naming_the_entrant(tmp_path: Path) -> None:
    from referee.tournament_service.auth import hash_password

    (tmp_path / "organiser.hash").write_text(hash_password("pw", salt=b"0123456789abcdef"))
    (tmp_path / "rossi.npz").write_bytes(pickled_npz())
    config = tmp_path / "t.toml"
    config.write_text('state_dir = "s"\n[broker]\nurl = "mqtt://localhost"\nusername = "tournament"\n'
                      '[web]\norganiser_password_file = "organiser.hash"\n'
                      '[format]\nkind = "knockout"\ntables = 2\n'
                      '[[entrants]]\nid = "rossi"\nmembers = ["Rossi", "Bianchi"]\nenrollment = "rossi.npz"\n')
    with pytest.raises(ConfigError, match=r"entrants\[0\]\.enrollment: .*rossi\.npz.*the deck of rossi.*never unpickled"):
        load_service_config(config)


def decks_service(tmp: Path, sent: Sent) -> tuple[Service, dict[str, bytes]]:
    files = {f"p{i}": enrollment_file(tmp / f"p{i}.npz", seed=i) for i in range(4)}
    service = Service(TournamentStore.open(tmp / "t"), lambda t, p, r: sent.append((t, p, r)))
    service.apply([Register(Entrant(f"p{i}", (f"A{i}", f"B{i}"), str(tmp / f"p{i}.npz"))) for i in range(4)]
                  + [Start(Knockout(2), seed=1)])
    return service, files


def test_the_service_sends_each_table_its_decks_file_before_the_assignment(tmp_path: Path) -> None:
    sent: Sent = []
    service, files = decks_service(tmp_path, sent)
    for a in service.tournament.tables():
        assert a.deck is not None
        data = files[a.deck.id]
        order = [t for t, _, _ in sent if t.startswith(f"referee/table-{a.table}/")]
        assert order == [topic(a.table, "deck"), topic(a.table, "assign")]
        deck_payload = next(p for t, p, r in sent if t == topic(a.table, "deck") and r)
        assert deck_payload == data
        told = Assignment.parse(next(p for t, p, r in sent if t == topic(a.table, "assign")))
        assert (told.deck_sha256, told.deck_size) == (hashlib.sha256(data).hexdigest(), len(data))
    sent.clear()
    service.changed()
    assert sent == []  # unchanged: nothing sent again


def test_the_boxs_refusal_is_kept_for_the_organiser(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    sent: Sent = []
    service, _ = decks_service(tmp_path, sent)
    status = StatusMessage(1, True, {}, DeckReport("c" * 64, "enrollment was made with another model"))
    assert service.handle(topic(1, "status"), status.to_bytes()) == "status"
    assert service.live[1].deck == status.deck
    assert "table 1 kept the enrolment it had" in caplog.text


# --- through a real Mosquitto --------------------------------------------------------------
def test_the_deck_reaches_its_table_and_a_tampered_file_is_refused_and_reported(
        tmp_path: Path, mosquitto: Mosquitto) -> None:  # noqa: F811
    sent_files: Sent = []
    service, files = decks_service(tmp_path, sent_files)
    link = BrokerLink(service, mosquitto.url, "tournament", mosquitto.password_file("tournament"))
    link.start()
    state = tmp_path / "box-1"
    from referee.box.state import MatchStore

    with MatchStore.open(state):
        pass
    pub = publisher(state, mosquitto, 1)
    decks: queue.Queue[DeckFile] = queue.Queue()
    pub.on_deck = decks.put
    pub.deck_wait_s = 1.0
    pub.start()
    try:
        deck = decks.get(timeout=20)
        a = service.tournament.tables()[0]
        assert a.deck is not None and deck.owner == a.deck.id
        assert deck.path.read_bytes() == files[a.deck.id] and deck.path.parent == state / "decks"
        pub.report_deck(deck.sha256, None)  # what referee run does once the recogniser took it
        wait_until(lambda: service.live.get(1) is not None and service.live[1].deck == DeckReport(deck.sha256),
                   what="the box's word that it took the file")

        # a file that is not the assignment's (the ACL lets only the service write it)
        link.client.publish(topic(1, "deck"), tampered(files[a.deck.id]), qos=1, retain=True)
        wait_until(lambda: service.live[1].deck is not None and service.live[1].deck.error is not None,
                   what="the box's refusal")
        report = service.live[1].deck
        assert report is not None and "not the assignment's" in str(report.error)
        assert decks.empty()  # the recogniser was not handed the bad file
    finally:
        pub.stop()
        link.stop()
        service.store.close()
    assert json.loads(StatusMessage(1, True, {}, DeckReport("d" * 64)).to_bytes())["deck"]["error"] is None
