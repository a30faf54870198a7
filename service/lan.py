"""``paiscan serve --lan``: the address a phone on the same Wi-Fi opens, printed with a QR code of it."""

from __future__ import annotations

import io
import socket

#: an address outside any LAN, only used to ask the OS which interface would route to it (nothing is sent)
PROBE_ADDRESS = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737), discard port


def lan_address() -> str | None:
    """This machine's address on its local network (the interface of the default route), or None.

    A UDP socket's ``connect`` sends no packet; it only picks the interface, whose address is then read.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.connect(PROBE_ADDRESS)
        address: str = sock.getsockname()[0]
    except OSError:
        return None
    finally:
        sock.close()
    return None if address.startswith(("0.", "127.")) else address


def lan_url(port: int, address: str | None = None) -> str | None:
    """The page's URL on the LAN (``http://192.168.1.20:8000/``), or None without a LAN address."""
    address = address or lan_address()
    return f"http://{address}:{port}/" if address else None


def qr_text(url: str) -> str:
    """``url`` as a QR code drawn with block characters, for a terminal (segno's compact output)."""
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def announce(port: int) -> str:
    """What ``serve --lan`` prints before the server starts: the LAN address and its QR code."""
    url = lan_url(port)
    if url is None:
        return (
            "No local network address found: connect this computer to the Wi-Fi the phones use, "
            f"then open http://<this computer's address>:{port}/ on a phone.\n"
        )
    return (
        f"On a phone on the same Wi-Fi, open {url}\nor scan:\n{qr_text(url)}"
        "(plain http on a LAN: the page works, but browsers keep it offline only over https or on localhost)\n"
    )
