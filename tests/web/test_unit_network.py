"""The service opens the network only as far as the console needs: IP on the club's local
networks, no further, and the rest of its hardening kept."""

from __future__ import annotations

from box.test_unit_and_install import unit_values


def test_unit_allows_ip_only_on_local_networks() -> None:
    v = unit_values()
    families = v["Service.RestrictAddressFamilies"][0].split()
    assert {"AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK"} == set(families)
    assert v["Service.IPAddressDeny"] == ["any"]
    allowed = v["Service.IPAddressAllow"][0].split()
    assert {"localhost", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} <= set(allowed)
    assert "0.0.0.0/0" not in allowed and "::/0" not in allowed and "any" not in allowed


def test_unit_keeps_its_hardening() -> None:
    v = unit_values()
    assert v["Service.CapabilityBoundingSet"] == [""] and v["Service.NoNewPrivileges"] == ["yes"]
    assert v["Service.ProtectSystem"] == ["strict"] and v["Service.User"] == ["referee"]
    assert v["Service.SystemCallFilter"] == ["@system-service"]
