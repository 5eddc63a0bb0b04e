"""Network addresses judged by their literal form alone: a host name is never resolved, so a
name that an attacker's DNS points at this machine is not taken for it."""

from __future__ import annotations

import ipaddress


def loopback(host: str) -> bool:
    """Whether ``host`` (a name, an IPv4 or a bracketed or bare IPv6 address) is this machine."""
    host = host.strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
