"""The driftwatch journal writer for Python bots: docs/journal.md as one standard-library file.

Copy this file next to your bot (Python 3.9 or later; it imports nothing outside the standard
library). It writes the same rows, in the same transactions and the same order, as the TypeScript
writer (lib/bot/journal-writer.ts), so the console reads a Python bot's journal exactly as it reads
a TypeScript one. The habits it keeps for you:

1. every order gets a deterministic client order id, derived from the decision, never the clock;
2. the intent is committed before the send and the reply after it; a timeout makes the order
   doubtful, and doubt is settled by looking the id up, never by resending blind;
3. every cycle both books are compared (the operator's book corrections counted); a drift trips
   the breaker, and the breaker is read from the journal before every new entry.

The exchange stays yours: the writer calls back into it through plain callables (send, lookup,
fetch positions, cancel, close reduce-only) that you write around your venue's client.

    import driftwatch_journal as dj
    con = dj.open_journal("journal.db")
    writer = dj.JournalWriter(con, bot_id="alpha", prefix="alpha", exchange="binance")
    writer.register()
    writer.resolve_doubtful(lookup)                  # at start-up
    outcome = writer.send_once(dj.Order("sma", "BTCUSDT", "buy", 0.5, bar), send, lookup)
    writer.reconcile(None, fetch_positions, {"BTCUSDT": 0.001},
                     cancel_all=cancel_all, close_reduce_only=close_reduce_only)

Bots on several hosts share one PostgreSQL journal: give open_journal (and migrate) a URL instead
of a path, and everything else stays the same. The module speaks PostgreSQL's wire protocol itself
(PgConnection, below: trust, cleartext, md5 and SCRAM-SHA-256 logins; TLS with libpq's sslmode,
and across a network use sslmode=verify-full with sslrootcert):

    url = "postgresql://alpha:secret@db.internal:5432/journal"   # the database must exist
    dj.migrate(url, "drizzle")                     # applies drizzle/pg, once, beside other bots
    writer = dj.JournalWriter(dj.open_journal(url), bot_id="alpha", prefix="alpha", exchange="binance")

Server errors raise PgError (its .sqlstate says which); opening raises JournalError (unreachable, tls,
authentication, missing, no_schema, older_schema, future_schema) with the password left out.
"""

import base64
import datetime
import hashlib
import hmac
import json
import math
import os
import re
import socket
import sqlite3
import ssl
import struct
import time
import urllib.parse
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

# The contract version this module writes: the PRAGMA user_version of a journal with every migration
# of drizzle/ applied. One constant, checked against drizzle/ by the project's CI: a contract change
# this module does not follow fails the build. Version 6 (0005_journal_prunes) adds only a table the
# pruning command writes: a bot never writes it, and its reconciliation ids may have gaps once old
# cycles are pruned (they stay unique; nothing a bot reads back is pruned). Version 7
# (0006_prune_horizons) adds only columns to that table: the prune's other horizons (incidents, settled
# orders, five-minute rollups folded into hourly ones). Nothing this module writes or reads changes.
SCHEMA_VERSION = 7

BUSY_TIMEOUT_MS = 5000

ORDER_STATES = ("created", "sent", "unknown", "open", "partially_filled", "filled", "canceled", "rejected", "absent")
SETTLED_STATES = ("filled", "canceled", "rejected", "absent")
ALWAYS_DOUBTFUL_STATES = ("unknown",)
# Not settled and not already doubtful: the exchange may still be changing the position.
IN_FLIGHT_STATES = tuple(s for s in ORDER_STATES if s not in SETTLED_STATES and s not in ALWAYS_DOUBTFUL_STATES)
EXCHANGE_STATUSES = ("open", "partially_filled", "filled", "canceled", "rejected")

# Orders of this strategy are the bot's reduce-only closes of positions it never opened.
RECONCILE_STRATEGY = "reconcile"

_HASH_HEX_DIGITS = 20
_PREFIX = re.compile(r"^[A-Za-z0-9_.:]+$")
# The compact form (no "-" after the prefix), for a venue whose ids are letters and digits only:
# OKX's clOrdId takes 1 to 32 of them, so the prefix at most 12 with the 20-digit digest.
_COMPACT_PREFIX = re.compile(r"^[A-Za-z0-9]{1,12}$")
ID_FORMS = ("dash", "compact")
_MIGRATION = re.compile(r"^(\d{4})_.*\.sql$")


# --- errors -------------------------------------------------------------------------------------


class JournalError(Exception):
    """One line that names the file, what is wrong and the fix (the console's own wording)."""

    def __init__(self, code: str, file: str, problem: str, fix: str) -> None:
        super().__init__(f"journal {file}: {problem}. Fix: {fix}")
        self.code = code
        self.file = file
        self.problem = problem
        self.fix = fix


class InvalidDecisionError(ValueError):
    pass


class BreakerHalted(Exception):
    """Raised by send_once for a new entry while the breaker is halted."""

    def __init__(self, bot_id: str, reason: Optional[str]) -> None:
        super().__init__(
            f"bot {bot_id} is halted ({reason if reason is not None else 'no reason given'}): "
            "no new entries until an operator clears it"
        )
        self.bot_id = bot_id
        self.reason = reason


class SendTimeout(TimeoutError):
    """Raise from your send when the request or its reply was lost: the order may or may not exist.
    Any TimeoutError (socket timeouts included) is read the same way."""


class OrderRejected(Exception):
    """Raise from your send when the exchange received the order and refused it: settled, no retry."""

    def __init__(self, reason: str, message: Optional[str] = None) -> None:
        super().__init__(message if message is not None else f"order rejected: {reason}")
        self.reason = reason


class DuplicateClientOrderId(Exception):
    """Raise from your send when the exchange already has an order with this client order id."""


class RateLimited(Exception):
    """Raise from your send when the exchange refused the request for its rate limit."""


# --- the client order id ------------------------------------------------------------------------


def format_qty(qty: Union[int, float, Decimal, str]) -> str:
    """The quantity as the contract writes it in a client order id's seed: the shortest plain decimal
    that reads back as the same double (500, 0.25, 0.001, 1234.5; never 1e-05, never 500.0).

    The journal stores `qty` as a double and the console recomputes every id from that stored value,
    so any input (int, float, Decimal, text) is taken as the double it will be stored as.
    """
    value = _qty_float(qty)
    # repr() gives the shortest digits that round-trip, like JavaScript's; Decimal spells them out
    # without an exponent.
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _qty_float(qty: Any) -> float:
    if isinstance(qty, bool) or not isinstance(qty, (int, float, Decimal, str)):
        raise ValueError(f"quantity must be a number, got {qty!r}")
    try:
        value = float(qty)
    except (ValueError, OverflowError) as error:
        raise ValueError(f"quantity must be a finite number above 0, got {qty!r}") from error
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"quantity must be a finite number above 0, got {_js_number(value)}")
    return value


@dataclass(frozen=True)
class Order:
    """A decision: the fields that make its client order id. `bar` is the time of the bar the decision
    was made on (as stored in orders.bar), never the wall clock."""

    strategy: str
    symbol: str
    side: str
    qty: Union[int, float, Decimal, str]
    bar: str


def decision_seed(strategy: str, symbol: str, side: str, qty: Any, bar: str) -> str:
    """`strategy|symbol|side|qty|bar`, exactly the string that is hashed."""
    fields = [strategy, symbol, side, format_qty(qty), bar]
    for f in fields:
        # A `|` inside a field would let two different decisions share one seed.
        if not isinstance(f, str) or len(f) == 0 or "|" in f:
            raise InvalidDecisionError(f'decision field {json.dumps(f, ensure_ascii=False)} must be non-empty and free of "|"')
    return "|".join(fields)


def _check_prefix(prefix: Any, form: str) -> None:
    if form not in ID_FORMS:
        raise ValueError(f"id form must be one of {ID_FORMS}, not {form!r}")
    if form == "compact":
        if not isinstance(prefix, str) or not _COMPACT_PREFIX.match(prefix):
            raise InvalidDecisionError(
                f"client id prefix {json.dumps(prefix, ensure_ascii=False)} must be 1 to 12 letters or digits for the compact form"
                " (OKX takes 32 letters and digits)"
            )
    elif not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise InvalidDecisionError(f'client id prefix {json.dumps(prefix, ensure_ascii=False)} must be letters, digits, "_", "." or ":"')


def _unknown_why(send_error: Optional[str], last: str) -> str:
    """Why an order is unknown: the send's failure, then what the last lookup met (the last lookup's
    error alone hid that the send itself had timed out); lib/bot/journal-writer.ts unknownWhy."""
    return last if send_error is None or send_error == last else f"send failed: {send_error}; then {last}"


def client_order_id(prefix: str, strategy: str, symbol: str, side: str, qty: Any, bar: str, form: str = "dash") -> str:
    """`<prefix>-<first 20 hex digits of sha256(seed)>`: the same decision is always the same id,
    across retries, restarts and languages. `form="compact"` leaves out the "-", for a venue whose
    ids are letters and digits only (OKX); docs/journal.md, "The client order id"."""
    _check_prefix(prefix, form)
    seed = decision_seed(strategy, symbol, side, qty, bar)
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:_HASH_HEX_DIGITS]
    return f"{prefix}{'' if form == 'compact' else '-'}{digest}"


# --- JavaScript-compatible text (reasons and event details read the same as a TypeScript bot's) ---


def _js_number(x: Union[int, float]) -> str:
    """String(x) as JavaScript writes a number."""
    if isinstance(x, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    d = Decimal(repr(abs(x))).normalize()
    _, digit_tuple, exponent = d.as_tuple()
    digits = "".join(str(c) for c in digit_tuple)
    k = len(digits)
    n = k + int(exponent)  # the decimal point sits after n digits
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


def _js_json(value: Any) -> str:
    """JSON.stringify(value) for the plain values an event's detail holds."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return _js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{_js_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_js_json(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} into an event's detail")


def _signed(x: float) -> str:
    return f"+{_js_number(x)}" if x > 0 else _js_number(x)


def iso_utc(at: datetime.datetime) -> str:
    """A journal time: UTC ISO-8601 with milliseconds and Z (2026-08-10T15:31:02.417Z)."""
    if at.tzinfo is None:
        raise ValueError("journal times need an aware datetime (UTC); got a naive one")
    u = at.astimezone(datetime.timezone.utc)
    return u.strftime("%Y-%m-%dT%H:%M:%S.") + f"{u.microsecond // 1000:03d}Z"


def _error_text(error: BaseException) -> str:
    return str(error) or type(error).__name__


# --- PostgreSQL: a small wire-protocol v3 client (standard library only) -------------------------
#
# Enough of https://www.postgresql.org/docs/current/protocol.html for a bot's journal: startup;
# authentication by trust, cleartext password, md5 or SCRAM-SHA-256 (the servers' default since
# PostgreSQL 14); the extended query protocol (Parse, Bind, Describe, Execute, Sync) with every
# parameter sent as text, so values never become SQL text; the simple query protocol for the
# migration files; server errors raised as PgError with their SQLSTATE; TLS through the standard
# library's ssl module, with libpq's sslmode (disable, allow, prefer, require, verify-ca,
# verify-full) and sslrootcert.
# It speaks as much of sqlite3's connection API as the writer uses (execute, executemany, rowcount,
# fetchone, fetchall, in_transaction, isolation_level None), with `?` placeholders.


class PgError(Exception):
    """An error the PostgreSQL server sent: `sqlstate` is its five-character code (23505 unique
    violation, 28P01 wrong password, 3D000 no such database, 40001 serialization failure...)."""

    def __init__(self, fields: Mapping[str, str]) -> None:
        self.fields = dict(fields)
        self.sqlstate = fields.get("C", "")
        self.severity = fields.get("V", fields.get("S", "ERROR"))
        self.detail = fields.get("D")
        self.hint = fields.get("H")
        message = fields.get("M", "unknown error")
        super().__init__(f"{self.severity} {self.sqlstate}: {message}" + (f" ({self.detail})" if self.detail else ""))
        self.message = message


class PgProtocolError(Exception):
    """The server said something this client does not understand, or the connection broke."""


class PgTlsError(PgProtocolError):
    """TLS could not be had as sslmode asks: the server does not speak it, its certificate was
    refused, or the handshake failed. open_journal reports it as JournalError code "tls"."""


class PgTlsSettingError(PgTlsError, ValueError):
    """sslmode or sslrootcert cannot work as given (an unknown mode, a verifying mode without a
    root certificate, a root certificate file that is not there): found before any connection."""


_PG_TEXT_DECODERS: Dict[int, Callable[[str], Any]] = {
    16: lambda v: v == "t",  # bool
    20: int,  # int8
    21: int,  # int2
    23: int,  # int4
    26: int,  # oid
    700: float,  # float4
    701: float,  # float8
    1700: Decimal,  # numeric
    17: lambda v: bytes.fromhex(v[2:]) if v.startswith("\\x") else v.encode(),  # bytea (hex output)
}


def _pg_param(value: Any) -> Optional[bytes]:
    """A parameter as the text PostgreSQL reads back as the same value."""
    if value is None:
        return None
    if value is True:
        return b"true"
    if value is False:
        return b"false"
    if isinstance(value, int):
        return str(value).encode()
    if isinstance(value, float):
        if math.isnan(value):
            return b"NaN"
        if math.isinf(value):
            return b"Infinity" if value > 0 else b"-Infinity"
        return repr(value).encode()  # the shortest text that reads back as the same double
    if isinstance(value, Decimal):
        return str(value).encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b"\\x" + bytes(value).hex().encode()
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("PostgreSQL text cannot hold a NUL character")
        return value.encode("utf-8")
    raise TypeError(f"cannot send {value!r} to PostgreSQL as a parameter")


def _numbered_placeholders(sql: str) -> str:
    """`?` outside quotes to `$1`, `$2`...: the writer's statements are written once, for both engines."""
    out, n, quote = [], 0, None
    for ch in sql:
        if quote:
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(ch)
    return "".join(out)


def is_postgres_url(value: Any) -> bool:
    return isinstance(value, str) and (value.startswith("postgresql://") or value.startswith("postgres://"))


def redact_url(url: str) -> str:
    """The URL without its password, for messages."""
    u = urllib.parse.urlsplit(url)
    if u.password is None:
        return url
    netloc = u.netloc.replace(":" + u.password + "@", ":***@", 1) if ":" + u.password + "@" in u.netloc else u.netloc
    return urllib.parse.urlunsplit((u.scheme, netloc, u.path, u.query, u.fragment))


class PgCursor:
    """What PgConnection.execute returns: the rows of one statement and its row count."""

    def __init__(self, columns: List[str], rows: List[Tuple[Any, ...]], rowcount: int) -> None:
        self.description = [(c, None, None, None, None, None, None) for c in columns]
        self.rows = rows
        self.rowcount = rowcount
        self.lastrowid = None  # PostgreSQL has no rowid: use RETURNING id
        self._next = 0

    def fetchone(self) -> Optional[Tuple[Any, ...]]:
        if self._next >= len(self.rows):
            return None
        self._next += 1
        return self.rows[self._next - 1]

    def fetchall(self) -> List[Tuple[Any, ...]]:
        rest = self.rows[self._next :]
        self._next = len(self.rows)
        return rest

    def __iter__(self):
        return iter(self.fetchall())


_SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


class PgConnection:
    """One connection to a PostgreSQL server, from a `postgresql://user:password@host:port/db` URL
    (libpq's form; `?application_name=`, `?connect_timeout=`, `?sslmode=` and `?sslrootcert=` are
    read, as are PGSSLMODE and PGSSLROOTCERT; a missing password is read from PGPASSWORD). Not
    thread-safe: one per bot thread.

    sslmode as libpq reads it: disable speaks plain TCP; allow too, and TLS when the server refuses
    the login in the clear; prefer (the default) uses TLS when the server offers it, and the clear
    when the handshake fails or the server refuses the login over TLS; require insists on TLS without checking the certificate (unless a root
    certificate is given, then as verify-ca); verify-ca checks it against sslrootcert; verify-full
    also checks that it names the host. A remote server should be reached with verify-full."""

    isolation_level = None  # like sqlite3's autocommit mode: nothing opens a transaction but BEGIN

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("postgresql", "postgres"):
            raise ValueError(f"not a PostgreSQL URL: {redact_url(url)}")
        query = dict(urllib.parse.parse_qsl(u.query))
        sslmode = query.get("sslmode", os.environ.get("PGSSLMODE", "prefer"))
        if sslmode not in _SSL_MODES:
            raise PgTlsSettingError(f"sslmode={sslmode}: expected one of {', '.join(_SSL_MODES)}")
        rootcert = query.get("sslrootcert", os.environ.get("PGSSLROOTCERT"))
        if sslmode in ("verify-ca", "verify-full") and not rootcert:
            raise PgTlsSettingError(f"sslmode={sslmode} needs the CA certificate to check the server by: ?sslrootcert=/path/to/ca.crt")
        if rootcert and sslmode in ("require", "verify-ca", "verify-full") and not os.path.isfile(rootcert):
            raise PgTlsSettingError(f"sslrootcert={rootcert} is not a file: give the path of the CA certificate that signed the server's")
        self._tls_context = self._context(sslmode, rootcert)
        self.url = url
        self.host = urllib.parse.unquote(u.hostname or "127.0.0.1")
        self.port = u.port or 5432
        self.user = urllib.parse.unquote(u.username or os.environ.get("PGUSER") or "postgres")
        self._password = urllib.parse.unquote(u.password) if u.password is not None else os.environ.get("PGPASSWORD")
        self.database = urllib.parse.unquote(u.path.lstrip("/")) or self.user
        timeout = float(query.get("connect_timeout", timeout))
        application = query.get("application_name", "driftwatch_journal")
        # libpq's fallbacks, each a new TCP connection: allow tries the clear first and TLS when the
        # server refuses the login there (pg_hba's hostssl); prefer tries TLS first (a server that
        # answers N to the request is spoken to in the clear on the same connection) and the clear
        # when the handshake fails or the login is refused over TLS (hostnossl).
        attempts = {"allow": [False, True], "prefer": [True, False]}.get(sslmode, [sslmode != "disable"])
        for i, use_tls in enumerate(attempts):
            try:
                self._open(use_tls, sslmode, rootcert, timeout, application)
                return
            except PgError as error:
                if i == len(attempts) - 1 or error.sqlstate != "28000":
                    raise
            except PgTlsError:
                if i == len(attempts) - 1:
                    raise

    def _open(self, use_tls: bool, sslmode: str, rootcert: Optional[str], timeout: float, application: str) -> None:
        """One TCP connection, TLS on it when `use_tls`, and the login; closed again if any step fails."""
        self.parameters: Dict[str, str] = {}
        self._status = b"I"
        self._buf = b""
        self.tls = False
        self._sock = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if use_tls:
                self._negotiate_tls(sslmode, rootcert)
            self._startup(application)
            self._sock.settimeout(None)
        except BaseException:
            self._sock.close()
            raise

    def _negotiate_tls(self, sslmode: str, rootcert: Optional[str]) -> None:
        """The SSLRequest, then the handshake when the server says S (protocol.html, "SSL Session Encryption")."""
        self._sock.sendall(struct.pack("!ii", 8, 80877103))
        answer = self._sock.recv(1)
        if answer == b"":
            raise PgTlsError(f"the server at {self.host}:{self.port} closed the connection when asked for TLS")
        if answer == b"N":
            if sslmode in ("prefer", "allow"):
                return
            raise PgTlsError(f"sslmode={sslmode}, but the server at {self.host}:{self.port} does not accept TLS connections")
        if answer != b"S":
            raise PgProtocolError(f"the server at {self.host}:{self.port} answered the TLS request with {answer!r}")
        context = self._tls_context
        try:
            self._sock = context.wrap_socket(self._sock, server_hostname=self.host)
        except ssl.SSLCertVerificationError as error:
            # verify_message says which check failed: an unknown CA, a name the certificate does not hold, an expired one.
            raise PgTlsError(
                f"the certificate of the server at {self.host}:{self.port} was refused (sslmode={sslmode}): {error.verify_message or error}"
            ) from None
        except ssl.SSLError as error:
            raise PgTlsError(f"the TLS handshake with the server at {self.host}:{self.port} failed (sslmode={sslmode}): {error.reason or error}") from None
        except OSError as error:
            # The connection dropped during the handshake: for prefer, a reason to try the clear, as libpq does.
            raise PgTlsError(f"the server at {self.host}:{self.port} dropped the connection during the TLS handshake (sslmode={sslmode}): {error}") from None
        self.tls = True

    @staticmethod
    def _context(sslmode: str, rootcert: Optional[str]) -> ssl.SSLContext:
        """The TLS settings sslmode asks for, made once before any connection: a root certificate that
        cannot be read or is not a certificate is a setting error, not a server that cannot be reached."""
        try:
            if sslmode in ("verify-ca", "verify-full") or (sslmode == "require" and rootcert):
                context = ssl.create_default_context(cafile=rootcert)
                context.check_hostname = sslmode == "verify-full"
            else:
                # prefer, allow, or require without a root certificate: encrypted, the server unchecked (libpq's meaning).
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
        except (ssl.SSLError, OSError) as error:
            raise PgTlsSettingError(f"sslrootcert={rootcert} cannot be used as the CA certificate ({error})") from None
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        return context

    # --- framing ----------------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        self._sock.sendall(data)

    @staticmethod
    def _msg(kind: bytes, body: bytes = b"") -> bytes:
        return kind + struct.pack("!i", len(body) + 4) + body

    def _recv_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise PgProtocolError(f"the server at {self.host}:{self.port} closed the connection")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def _read(self) -> Tuple[bytes, bytes]:
        head = self._recv_exact(5)
        kind, length = head[:1], struct.unpack("!i", head[1:])[0]
        return kind, self._recv_exact(length - 4)

    @staticmethod
    def _fields(body: bytes) -> Dict[str, str]:
        out = {}
        for part in body.split(b"\x00"):
            if part:
                out[chr(part[0])] = part[1:].decode("utf-8", "replace")
        return out

    # --- startup and authentication ---------------------------------------------------------

    def _need_password(self, method: str) -> str:
        if self._password is None:
            raise PgProtocolError(f"the server asks user {self.user} for a password ({method}): put it in the URL or PGPASSWORD")
        return self._password

    def _startup(self, application_name: str) -> None:
        params = {"user": self.user, "database": self.database, "application_name": application_name, "client_encoding": "UTF8"}
        body = struct.pack("!i", 196608) + b"".join(k.encode() + b"\x00" + v.encode() + b"\x00" for k, v in params.items()) + b"\x00"
        self._send(struct.pack("!i", len(body) + 4) + body)
        scram: Optional[Dict[str, Any]] = None
        while True:
            kind, body = self._read()
            if kind == b"E":
                raise PgError(self._fields(body))
            if kind == b"R":
                code = struct.unpack("!i", body[:4])[0]
                if code == 0:
                    continue
                if code == 3:  # cleartext
                    self._send(self._msg(b"p", self._need_password("password").encode() + b"\x00"))
                elif code == 5:  # md5: md5(md5(password + user) + salt)
                    inner = hashlib.md5((self._need_password("md5") + self.user).encode()).hexdigest()
                    outer = hashlib.md5(inner.encode() + body[4:8]).hexdigest()
                    self._send(self._msg(b"p", b"md5" + outer.encode() + b"\x00"))
                elif code == 10:  # SASL: the mechanisms offered
                    mechanisms = [m.decode() for m in body[4:].split(b"\x00") if m]
                    if "SCRAM-SHA-256" not in mechanisms:
                        raise PgProtocolError(f"the server offers only {', '.join(mechanisms)}; this client speaks SCRAM-SHA-256")
                    scram = self._scram_first()
                elif code == 11 and scram is not None:
                    self._scram_final(scram, body[4:].decode())
                elif code == 12 and scram is not None:
                    final = dict(p.split("=", 1) for p in body[4:].decode().split(",") if "=" in p)
                    if not hmac.compare_digest(base64.b64decode(final.get("v", "")), scram["server_signature"]):
                        raise PgProtocolError("the server's SCRAM signature is wrong: it does not know the password (not the real server?)")
                else:
                    raise PgProtocolError(f"authentication method {code} is not supported (trust, password, md5, scram-sha-256 are)")
            elif kind == b"S":
                k, v = body.split(b"\x00")[:2]
                self.parameters[k.decode()] = v.decode()
            elif kind == b"Z":
                self._status = body[:1]
                return
            # K (backend key), N (notice): nothing to do

    def _scram_first(self) -> Dict[str, Any]:
        nonce = base64.b64encode(os.urandom(18)).decode()
        first_bare = f"n=,r={nonce}"  # the server takes the user name from the startup message
        first = ("n,," + first_bare).encode()
        body = b"SCRAM-SHA-256\x00" + struct.pack("!i", len(first)) + first
        self._send(self._msg(b"p", body))
        return {"nonce": nonce, "first_bare": first_bare}

    def _scram_final(self, state: Dict[str, Any], server_first: str) -> None:
        parts = dict(p.split("=", 1) for p in server_first.split(",") if "=" in p)
        nonce, salt, iterations = parts["r"], base64.b64decode(parts["s"]), int(parts["i"])
        if not nonce.startswith(state["nonce"]):
            raise PgProtocolError("the server's SCRAM nonce does not extend ours")
        # SASLprep is the identity for ASCII passwords; others are sent as their UTF-8 bytes.
        salted = hashlib.pbkdf2_hmac("sha256", self._need_password("scram-sha-256").encode("utf-8"), salt, iterations)
        client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
        stored_key = hashlib.sha256(client_key).digest()
        without_proof = f"c=biws,r={nonce}"
        auth_message = f"{state['first_bare']},{server_first},{without_proof}".encode()
        signature = hmac.new(stored_key, auth_message, hashlib.sha256).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
        state["server_signature"] = hmac.new(server_key, auth_message, hashlib.sha256).digest()
        self._send(self._msg(b"p", f"{without_proof},p={base64.b64encode(proof).decode()}".encode()))

    # --- queries ----------------------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return self._status != b"I"

    def _collect(self) -> List[Tuple[List[str], List[Tuple[Any, ...]], int]]:
        """Reads up to ReadyForQuery: each statement's columns, rows and row count; raises the first error."""
        results: List[Tuple[List[str], List[Tuple[Any, ...]], int]] = []
        columns: List[str] = []
        decoders: List[Callable[[str], Any]] = []
        rows: List[Tuple[Any, ...]] = []
        error: Optional[PgError] = None
        while True:
            kind, body = self._read()
            if kind == b"T":
                n = struct.unpack("!h", body[:2])[0]
                pos, columns, decoders = 2, [], []
                for _ in range(n):
                    end = body.index(b"\x00", pos)
                    columns.append(body[pos:end].decode())
                    oid = struct.unpack("!i", body[end + 7 : end + 11])[0]
                    decoders.append(_PG_TEXT_DECODERS.get(oid, str))
                    pos = end + 19
                rows = []
            elif kind == b"D":
                n = struct.unpack("!h", body[:2])[0]
                pos, row = 2, []
                for i in range(n):
                    length = struct.unpack("!i", body[pos : pos + 4])[0]
                    pos += 4
                    if length < 0:
                        row.append(None)
                    else:
                        row.append(decoders[i](body[pos : pos + length].decode("utf-8")))
                        pos += length
                rows.append(tuple(row))
            elif kind == b"C":
                tag = body.rstrip(b"\x00").decode().split()
                count = int(tag[-1]) if tag and tag[-1].isdigit() else -1
                results.append((columns, rows, count))
                columns, decoders, rows = [], [], []
            elif kind == b"I":
                results.append(([], [], -1))
            elif kind == b"E":
                error = error or PgError(self._fields(body))
            elif kind == b"Z":
                self._status = body[:1]
                if error is not None:
                    raise error
                return results
            elif kind == b"S":
                k, v = body.split(b"\x00")[:2]
                self.parameters[k.decode()] = v.decode()
            # 1 ParseComplete, 2 BindComplete, n NoData, N notice, s PortalSuspended: nothing to keep

    def execute(self, sql: str, params: Any = ()) -> PgCursor:
        """One statement with `?` parameters, sent apart from the SQL text (extended protocol)."""
        values = [_pg_param(v) for v in params]
        text = _numbered_placeholders(sql).encode("utf-8")
        bind = b"\x00\x00" + struct.pack("!hh", 0, len(values))
        for v in values:
            bind += struct.pack("!i", -1) if v is None else struct.pack("!i", len(v)) + v
        bind += struct.pack("!h", 0)
        self._send(
            self._msg(b"P", b"\x00" + text + b"\x00" + struct.pack("!h", 0))
            + self._msg(b"B", bind)
            + self._msg(b"D", b"P\x00")
            + self._msg(b"E", b"\x00" + struct.pack("!i", 0))
            + self._msg(b"S")
        )
        results = self._collect()
        columns, rows, count = results[-1] if results else ([], [], -1)
        return PgCursor(columns, rows, count)

    def executemany(self, sql: str, seq: Any) -> PgCursor:
        total = 0
        for params in seq:
            total += max(self.execute(sql, params).rowcount, 0)
        return PgCursor([], [], total)

    def script(self, sql: str) -> None:
        """A whole file of statements at once (simple query protocol): a migration file."""
        self._send(self._msg(b"Q", sql.encode("utf-8") + b"\x00"))
        self._collect()

    def close(self) -> None:
        try:
            self._send(self._msg(b"X"))
        except OSError:
            pass
        self._sock.close()

    def __del__(self) -> None:
        # Like sqlite3's connections: one the bot forgot is closed when it is collected.
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()

    def __enter__(self) -> "PgConnection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --- opening, creating and upgrading a journal --------------------------------------------------


def _migrate_hint(file: str) -> str:
    return f'run "npm run journal -- migrate {file}" (or driftwatch_journal.migrate)'


def _check_version(file: str, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise JournalError(
            "future_schema",
            file,
            f"has schema version {version}, newer than this driftwatch_journal.py knows ({SCHEMA_VERSION})",
            "update driftwatch_journal.py from the driftwatch release that wrote this journal",
        )
    if version == 0:
        raise JournalError("no_schema", file, "has no journal schema (PRAGMA user_version is 0)", _migrate_hint(file))
    if version < SCHEMA_VERSION:
        raise JournalError(
            "older_schema", file, f"has schema version {version}; this driftwatch_journal.py needs {SCHEMA_VERSION}", _migrate_hint(file)
        )


def _connect(file: str, *, must_exist: bool) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; every write below opens its own BEGIN IMMEDIATE.
    uri = "file:" + urllib.parse.quote(file) + ("?mode=rw" if must_exist else "?mode=rwc")
    con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return con


def _probe(con: sqlite3.Connection, file: str) -> Tuple[int, str]:
    try:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        mode = con.execute("PRAGMA journal_mode").fetchone()[0]
        return int(version), str(mode)
    except sqlite3.DatabaseError as error:
        con.close()
        if "not a database" in str(error) or "encrypted" in str(error):
            raise JournalError("not_sqlite", file, f"is not a SQLite database ({error})", "point the bot at its journal file") from error
        raise JournalError("unreadable", file, f"cannot be read ({error})", "check the file's permissions and that the disk is healthy") from error


def open_journal(path: Union[str, "os.PathLike[str]"], *, synchronous: str = "FULL") -> Union[sqlite3.Connection, PgConnection]:
    """A connection for the bot: the journal must exist at exactly SCHEMA_VERSION.

    WAL mode (set if the file is not in it yet), a 5 s busy timeout, and `synchronous = FULL`: every
    commit is on disk when it returns, so an intent the bot committed survives a power cut before
    the send. NORMAL is faster and safe against corruption in WAL mode, but may lose the last
    commits on power loss: use it only for journals that can be rewritten (simulations).
    Raises JournalError (missing, not_sqlite, no_schema, older_schema, future_schema).

    A `postgresql://user:password@host:port/database` URL opens a PostgreSQL journal instead (a
    PgConnection: the same writer, the same rows). There `synchronous` FULL or EXTRA sets
    synchronous_commit on (each COMMIT durable when it returns), NORMAL sets it off. Raises
    JournalError (unreachable, tls, authentication, missing, no_schema, older_schema, future_schema).
    """
    if synchronous not in ("FULL", "NORMAL", "EXTRA"):
        raise ValueError(f"synchronous must be FULL, NORMAL or EXTRA, got {synchronous!r}")
    if is_postgres_url(path):
        return _open_pg(str(path), synchronous)
    file = os.path.abspath(os.fspath(path))
    if not os.path.exists(file):
        raise JournalError("missing", file, "not found", f"{_migrate_hint(file)} to create it")
    if not os.path.isfile(file):
        raise JournalError("not_a_file", file, "is not a file", "point the bot at the journal file itself, not a folder")
    con = _connect(file, must_exist=True)
    version, mode = _probe(con, file)
    try:
        _check_version(file, version)
        if mode.lower() != "wal":
            con.execute("PRAGMA journal_mode = WAL")
        con.execute(f"PRAGMA synchronous = {synchronous}")
    except BaseException:
        con.close()
        raise
    return con


def _migration_files(migrations_dir: Union[str, "os.PathLike[str]"]) -> List[Tuple[int, str]]:
    folder = os.fspath(migrations_dir)
    files = sorted(f for f in os.listdir(folder) if _MIGRATION.match(f))
    out = []
    for i, name in enumerate(files):
        if int(name[:4]) != i:
            raise ValueError(f"migration {name} is out of sequence: expected number {i:04d}")
        out.append((i + 1, os.path.join(folder, name)))
    return out


def _statements(sql: str) -> List[str]:
    """The file's statements one by one (triggers whole), so they can run inside our transaction:
    executescript() would commit it first."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf)
            buf = ""
    rest = "\n".join(x for x in buf.splitlines() if not x.strip().startswith("--")).strip()
    if rest:
        raise ValueError(f"migration ends with an incomplete statement: {rest[:80]!r}")
    return out


def migrate(path: Union[str, "os.PathLike[str]"], migrations_dir: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Creates the journal (WAL) or upgrades it, as docs/journal.md describes: every file of
    `migrations_dir` (driftwatch's drizzle/ folder) whose number is at least the journal's
    user_version, each in its own BEGIN IMMEDIATE transaction with the version re-read under the
    lock. Safe to run twice, and beside a second migrator. Refuses a folder that goes past the
    contract version this module writes (update this file first).

    With a `postgresql://` URL: the files of `migrations_dir`/pg (drizzle/pg), or of
    `migrations_dir` itself when it has no pg folder, each in its own transaction under the
    advisory lock lib/db/pg-journal.ts takes, the version read from table journal_schema. The
    database must exist (createdb); its tables are created in the user's default schema."""
    if is_postgres_url(path):
        return _migrate_pg(str(path), os.fspath(migrations_dir))
    file = os.path.abspath(os.fspath(path))
    migrations = _migration_files(migrations_dir)
    if len(migrations) > SCHEMA_VERSION:
        newest = os.path.basename(migrations[-1][1])
        raise JournalError(
            "future_schema",
            file,
            f"would be migrated to version {len(migrations)} ({newest}), newer than this driftwatch_journal.py knows ({SCHEMA_VERSION})",
            "update driftwatch_journal.py from the same driftwatch release as the migrations",
        )
    existed = os.path.exists(file)
    if not existed:
        os.makedirs(os.path.dirname(file), exist_ok=True)
    con = _connect(file, must_exist=False)
    try:
        start, mode = _probe(con, file)
        if start > SCHEMA_VERSION:
            _check_version(file, start)
        if mode.lower() != "wal":
            con.execute("PRAGMA journal_mode = WAL")
        applied = []
        for version, migration in migrations:
            with open(migration, encoding="utf-8") as f:
                statements = _statements(f.read())
            con.execute("BEGIN IMMEDIATE")
            try:
                if con.execute("PRAGMA user_version").fetchone()[0] >= version:
                    con.execute("COMMIT")
                    continue
                for statement in statements:
                    con.execute(statement)
                con.execute(f"PRAGMA user_version = {version}")
                con.execute("COMMIT")
                applied.append(os.path.basename(migration))
            except BaseException as error:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error):
                    raise RuntimeError(f"migration {os.path.basename(migration)} failed on {file}: {error}") from error
                raise
        to = con.execute("PRAGMA user_version").fetchone()[0]
        return {"file": file, "created": not existed, "from": start, "to": to, "applied": applied}
    finally:
        con.close()


# --- PostgreSQL journals --------------------------------------------------------------------------


def _pg_check_version(where: str, version: int) -> None:
    fix = f'run driftwatch_journal.migrate("{where}", "drizzle") (it applies drizzle/pg)'
    if version > SCHEMA_VERSION:
        raise JournalError(
            "future_schema",
            where,
            f"has schema version {version}, newer than this driftwatch_journal.py knows ({SCHEMA_VERSION})",
            "update driftwatch_journal.py from the driftwatch release that wrote this journal",
        )
    if version == 0:
        raise JournalError("no_schema", where, "has no journal schema (no journal_schema row)", fix)
    if version < SCHEMA_VERSION:
        raise JournalError("older_schema", where, f"has schema version {version}; this driftwatch_journal.py needs {SCHEMA_VERSION}", fix)


def _pg_schema(con: PgConnection) -> Tuple[int, int]:
    """(contract version, migrations applied) of the journal_schema row; (0, 0) without one."""
    if con.execute("SELECT to_regclass('journal_schema')::text").fetchone()[0] is None:
        return 0, 0
    row = con.execute("SELECT version, migrations FROM journal_schema WHERE id = 1").fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def _pg_connect(url: str) -> PgConnection:
    where = redact_url(url)
    try:
        return PgConnection(url)
    except PgError as error:
        if error.sqlstate in ("28P01", "28000"):
            raise JournalError("authentication", where, f"refused the login ({error.message})", "check the user and password in the URL") from error
        if error.sqlstate == "3D000":
            raise JournalError("missing", where, f"has no such database ({error.message})", "create it (createdb), then migrate it") from error
        raise JournalError("unreadable", where, f"refused the connection ({error})", "check the server's log") from error
    except PgTlsError as error:
        raise JournalError(
            "tls",
            where,
            f"cannot be spoken to over TLS as asked ({error})",
            "check sslmode and sslrootcert in the URL: across a network, sslmode=verify-full with the CA certificate that signed the server's",
        ) from error
    except (OSError, PgProtocolError) as error:
        raise JournalError(
            "unreachable", where, f"cannot be reached ({_error_text(error)})", "check the host, the port and that the server is running"
        ) from error


def _open_pg(url: str, synchronous: str) -> PgConnection:
    where = redact_url(url)
    con = _pg_connect(url)
    try:
        _pg_check_version(where, _pg_schema(con)[0])
        # FULL and EXTRA: every COMMIT is on disk when it returns (PostgreSQL's default, said again in
        # case the server's is off). NORMAL: may lose the last commits on a crash, never corrupts.
        con.execute("SELECT set_config('synchronous_commit', ?, false)", ("off" if synchronous == "NORMAL" else "on",))
        # A row another writer holds (the console clearing this bot's breaker) is waited for as long
        # as SQLite's busy timeout, then the statement fails (PgError 55P03) instead of hanging.
        con.execute("SELECT set_config('lock_timeout', ?, false)", (f"{BUSY_TIMEOUT_MS}ms",))
    except BaseException:
        con.close()
        raise
    return con


_PG_SCHEMA_ROW = re.compile(r'INSERT INTO "journal_schema".*VALUES \(1, (\d+), (\d+)\)', re.S)


def _migrate_pg(url: str, migrations_dir: str) -> Dict[str, Any]:
    where = redact_url(url)
    folder = os.path.join(migrations_dir, "pg") if os.path.isdir(os.path.join(migrations_dir, "pg")) else migrations_dir
    migrations = _migration_files(folder)
    for index, file in migrations:
        with open(file, encoding="utf-8") as f:
            stamp = _PG_SCHEMA_ROW.search(f.read())
        if stamp is None or int(stamp.group(2)) != index:
            raise ValueError(f"{os.path.basename(file)} does not end by writing its journal_schema row (migrations = {index})")
        if int(stamp.group(1)) > SCHEMA_VERSION:
            raise JournalError(
                "future_schema",
                where,
                f"would be migrated to version {stamp.group(1)} ({os.path.basename(file)}), newer than this driftwatch_journal.py knows ({SCHEMA_VERSION})",
                "update driftwatch_journal.py from the same driftwatch release as the migrations",
            )
    con = _pg_connect(url)
    try:
        start_version, start = _pg_schema(con)
        if start > len(migrations):
            _pg_check_version(where, max(start_version, SCHEMA_VERSION + 1))
        applied = []
        for index, file in migrations:
            # The lock before BEGIN, as lib/db/pg-journal.ts takes it: a transaction begun before the
            # other migrator committed would still see no journal_schema and apply the file twice.
            con.execute("SELECT pg_advisory_lock(hashtext('driftwatch.migrate'))")
            try:
                con.execute("BEGIN")
                try:
                    if _pg_schema(con)[1] >= index:
                        con.execute("COMMIT")
                        continue
                    with open(file, encoding="utf-8") as f:
                        con.script(f.read())
                    if _pg_schema(con)[1] != index:
                        raise RuntimeError(f"migration {os.path.basename(file)} did not record itself in journal_schema")
                    con.execute("COMMIT")
                    applied.append(os.path.basename(file))
                except BaseException as error:
                    if con.in_transaction:
                        con.execute("ROLLBACK")
                    if isinstance(error, PgError):
                        raise RuntimeError(f"migration {os.path.basename(file)} failed on {where}: {error}") from error
                    raise
            finally:
                con.execute("SELECT pg_advisory_unlock(hashtext('driftwatch.migrate'))")
        to = _pg_schema(con)[0]
        return {"file": where, "created": start == 0, "from": start_version, "to": to, "applied": applied}
    finally:
        con.close()


# --- what the writer returns --------------------------------------------------------------------


@dataclass(frozen=True)
class ExchangeOrder:
    """What your send or lookup returns: the exchange's view of the order."""

    status: str  # open, partially_filled, filled, canceled, rejected
    exchange_order_id: str
    filled_qty: float = 0.0
    avg_price: Optional[float] = None


@dataclass(frozen=True)
class OrderRequest:
    """What send_once asks your send to place: use client_order_id as the exchange's client order id."""

    client_order_id: str
    symbol: str
    side: str
    qty: Union[int, float, Decimal, str]
    reduce_only: bool


@dataclass(frozen=True)
class Position:
    """One position as the exchange reports it. Signed: long > 0, short < 0."""

    size: float
    mark_price: Optional[float] = None


@dataclass(frozen=True)
class OrderRow:
    client_order_id: str
    bot_id: str
    strategy: str
    symbol: str
    side: str
    qty: float
    bar: str
    state: str
    exchange_order_id: Optional[str]
    filled_qty: float
    avg_price: Optional[float]
    attempts: int
    last_error: Optional[str]
    created_at: str
    updated_at: str
    version: int


@dataclass(frozen=True)
class SendOutcome:
    """kind: placed (the exchange has it: acknowledged or found by a lookup), rejected (settled),
    unknown (nobody can say; the order is `unknown` and the breaker tripped), existing (the decision
    was journaled already and is not resendable)."""

    kind: str
    order: OrderRow
    reason: Optional[str] = None


@dataclass(frozen=True)
class Breaker:
    halted: bool
    reason: Optional[str]
    version: int


@dataclass
class RecoveryReport:
    checked: int = 0
    found: List[str] = field(default_factory=list)
    absent: List[str] = field(default_factory=list)
    unknown: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class BookLine:
    symbol: str
    ours: float
    theirs: float
    qty_step: float
    mark_price: Optional[float]
    drift: str  # none, size_drift, unknown_position


@dataclass(frozen=True)
class ReconcileReport:
    outcome: str  # clean, drift, skipped, error
    reconciliation_id: int
    lines: List[BookLine] = field(default_factory=list)
    tripped: bool = False
    orders_in_flight: int = 0
    error: Optional[str] = None


@dataclass(frozen=True)
class Alert:
    bot_id: str
    at: str
    kind: str  # unknown_order, unknown_position, size_drift, reconciliation_error
    message: str
    drift: Optional[BookLine] = None


def drift_class(ours: float, theirs: float, qty_step: float) -> str:
    """A drift is a difference of half a step or more; an unknown position is a drift where the bot's
    book is flat, read at the same tolerance (|ours| < step / 2), so float dust cannot hide it."""
    if not qty_step > 0:
        raise ValueError(f"qty_step must be above 0, got {qty_step}")
    if abs(ours - theirs) < qty_step / 2:
        return "none"
    return "unknown_position" if abs(ours) < qty_step / 2 else "size_drift"


_ORDER_COLUMNS = (
    "client_order_id, bot_id, strategy, symbol, side, qty, bar, state, exchange_order_id, filled_qty, "
    "avg_price, attempts, last_error, created_at, updated_at, version"
)
_SETTLED_SQL = ", ".join(f"'{s}'" for s in SETTLED_STATES)
_IN_FLIGHT_SQL = ", ".join(f"'{s}'" for s in IN_FLIGHT_STATES)


def _as_exchange_order(value: Any) -> ExchangeOrder:
    if isinstance(value, ExchangeOrder):
        order = value
    elif isinstance(value, Mapping):
        order = ExchangeOrder(
            status=value["status"],
            exchange_order_id=value["exchange_order_id"],
            filled_qty=value.get("filled_qty", 0.0),
            avg_price=value.get("avg_price"),
        )
    else:
        raise TypeError(f"send and lookup must return an ExchangeOrder (or a mapping of its fields), got {value!r}")
    if order.status not in EXCHANGE_STATUSES:
        raise ValueError(f"exchange status must be one of {', '.join(EXCHANGE_STATUSES)}, got {order.status!r}")
    return order


def _as_order(order: Any) -> Order:
    if isinstance(order, Order):
        return order
    if isinstance(order, Mapping):
        return Order(order["strategy"], order["symbol"], order["side"], order["qty"], order["bar"])
    raise TypeError(f"an order is an Order (or a mapping of strategy, symbol, side, qty, bar), got {order!r}")


def _utf16_key(symbol: str) -> bytes:
    # JavaScript sorts strings by UTF-16 code units; so must we, for the same row order.
    return symbol.encode("utf-16-be")


# --- the writer ---------------------------------------------------------------------------------


class JournalWriter:
    """One bot's writer on an open journal connection (see open_journal).

    clock: returns an aware datetime (default: the wall clock in UTC); sleep: waits seconds*1000 ms
    between send attempts (default time.sleep); retry_attempts and backoff_ms: send attempts before an
    order is declared unknown, and the first backoff, doubled each time; on_alert: called with an
    Alert for every unknown order, unknown position, size drift and failed reconciliation.
    """

    def __init__(
        self,
        con: Union[sqlite3.Connection, PgConnection],
        *,
        bot_id: str,
        prefix: str,
        exchange: str,
        clock: Optional[Callable[[], datetime.datetime]] = None,
        sleep: Optional[Callable[[int], None]] = None,
        retry_attempts: int = 3,
        backoff_ms: int = 500,
        unknown_symbol_qty_step: float = 1e-8,
        on_alert: Optional[Callable[[Alert], None]] = None,
        id_form: str = "dash",
    ) -> None:
        if retry_attempts < 1:
            raise ValueError("retry_attempts must be at least 1")
        # id_form="compact" for a venue whose client ids are letters and digits only (OKX).
        _check_prefix(prefix, id_form)
        if con.isolation_level is not None:
            raise ValueError("open the connection with open_journal (isolation_level=None): the writer opens its own BEGIN IMMEDIATE")
        self.con = con
        # PostgreSQL: BEGIN (READ COMMITTED: every write here is an upsert, an INSERT ... ON CONFLICT
        # DO NOTHING or an UPDATE ... WHERE that the row lock re-checks), and RETURNING for new ids.
        self._pg = isinstance(con, PgConnection)
        self.bot_id = bot_id
        self.prefix = prefix
        self.id_form = id_form
        self.exchange = exchange
        self._clock = clock or (lambda: datetime.datetime.now(datetime.timezone.utc))
        self._sleep = sleep or (lambda ms: time.sleep(ms / 1000))
        self.retry_attempts = retry_attempts
        self.backoff_ms = backoff_ms
        self.unknown_symbol_qty_step = unknown_symbol_qty_step
        self._on_alert = on_alert

    # --- plumbing ---------------------------------------------------------------------------

    def now(self) -> str:
        return iso_utc(self._clock())

    def _tx(self, fn: Callable[[], Any]) -> Any:
        """One short BEGIN IMMEDIATE transaction (BEGIN on PostgreSQL): committed when fn returns,
        rolled back if it raises."""
        self.con.execute("BEGIN" if self._pg else "BEGIN IMMEDIATE")
        try:
            result = fn()
        except BaseException:
            try:
                self.con.execute("ROLLBACK")
            except (OSError, PgProtocolError):
                # PostgreSQL's connection is gone: the server has rolled the transaction back. Raise
                # what broke it; open a new connection and writer (resolve_doubtful settles the rest).
                if not self._pg:
                    raise
            raise
        self.con.execute("COMMIT")
        return result

    def _alert(self, kind: str, message: str, drift: Optional[BookLine] = None) -> None:
        if self._on_alert is not None:
            self._on_alert(Alert(self.bot_id, self.now(), kind, message, drift))

    # --- bots, heartbeat, breaker ----------------------------------------------------------

    def register(self) -> None:
        """Registers the bot and its breaker (running) if they are not in the journal yet; a halt
        already in the journal stays."""
        at = self.now()

        def write() -> None:
            self.con.execute(
                "INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (bot_id) DO UPDATE SET exchange = excluded.exchange, client_id_prefix = excluded.client_id_prefix",
                (self.bot_id, self.exchange, self.prefix, at),
            )
            self.con.execute(
                "INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by, version) "
                "VALUES (?, 0, NULL, ?, 'bot', 1) ON CONFLICT (bot_id) DO NOTHING",
                (self.bot_id, at),
            )

        self._tx(write)

    def heartbeat(self) -> None:
        self.con.execute("UPDATE bots SET heartbeat_at = ? WHERE bot_id = ?", (self.now(), self.bot_id))

    def breaker(self) -> Breaker:
        """The breaker as the journal holds it now (an operator may have halted the bot by hand)."""
        row = self.con.execute("SELECT halted, reason, version FROM breakers WHERE bot_id = ?", (self.bot_id,)).fetchone()
        # No breaker row means nobody registered the bot: refuse to trade rather than assume running.
        if row is None:
            return Breaker(True, "bot not registered", 0)
        return Breaker(row[0] == 1, row[1], row[2])

    def is_halted(self) -> bool:
        """The gate for every new entry, read from the journal each time, never from memory."""
        return self.breaker().halted

    def trip(self, reason: str, reconciliation_id: Optional[int] = None, *, seen_version: Optional[int] = None) -> bool:
        """Halts new entries: version + 1, and a trip event on the transition to halted only (a drift
        that persists while halted needs no new cause). With seen_version, changes nothing unless the
        breaker is still at that version (the bot acted on a view that has since changed). Returns
        whether this call halted the bot."""
        at = self.now()

        def write() -> bool:
            sql = (
                "UPDATE breakers SET halted = 1, reason = ?, changed_at = ?, changed_by = 'bot', version = version + 1 "
                "WHERE bot_id = ? AND halted = 0"
            )
            params: Tuple[Any, ...] = (reason, at, self.bot_id)
            if seen_version is not None:
                sql += " AND version = ?"
                params += (seen_version,)
            if self.con.execute(sql, params).rowcount == 0:
                return False
            self.con.execute(
                "INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'trip', ?, 'bot', ?)",
                (self.bot_id, at, reason, reconciliation_id),
            )
            return True

        return self._tx(write)

    # --- orders -----------------------------------------------------------------------------

    def order(self, client_order_id_value: str) -> Optional[OrderRow]:
        row = self.con.execute(f"SELECT {_ORDER_COLUMNS} FROM orders WHERE client_order_id = ?", (client_order_id_value,)).fetchone()
        return OrderRow(*row) if row else None

    def _must_order(self, id_: str) -> OrderRow:
        row = self.order(id_)
        if row is None:
            raise RuntimeError(f"order {id_} vanished from the journal")
        return row

    def _event(self, id_: str, kind: str, detail: Mapping[str, Any], at: Optional[str] = None) -> None:
        self.con.execute(
            "INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, 'bot', ?)",
            (id_, at or self.now(), kind, _js_json(detail)),
        )

    def client_order_id(self, order: Any) -> str:
        o = _as_order(order)
        return client_order_id(self.prefix, o.strategy, o.symbol, o.side, o.qty, o.bar, self.id_form)

    def record_intent(self, order: Any) -> Tuple[OrderRow, bool]:
        """Step 1: the intent, committed before anything touches the network. The same decision finds
        its existing row (inserted is then False)."""
        o = _as_order(order)
        id_ = self.client_order_id(o)
        seed = decision_seed(o.strategy, o.symbol, o.side, o.qty, o.bar)
        if o.side not in ("buy", "sell"):
            raise InvalidDecisionError(f"side must be buy or sell, got {o.side!r}")
        at = self.now()

        def write() -> Tuple[OrderRow, bool]:
            inserted = (
                self.con.execute(
                    "INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, "
                    "attempts, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, 'created', 0, 0, ?, ?, 1) "
                    "ON CONFLICT (client_order_id) DO NOTHING",
                    (id_, self.bot_id, o.strategy, o.symbol, o.side, _qty_float(o.qty), o.bar, at, at),
                ).rowcount
                == 1
            )
            if inserted:
                self._event(id_, "intent", {"seed": seed}, at)
            return self._must_order(id_), inserted

        return self._tx(write)

    def _apply_exchange_order(self, id_: str, found: ExchangeOrder, kind: str) -> OrderRow:
        at = self.now()

        def write() -> OrderRow:
            self.con.execute(
                "UPDATE orders SET state = ?, exchange_order_id = ?, filled_qty = ?, avg_price = ?, last_error = NULL, "
                "updated_at = ?, version = version + 1 WHERE client_order_id = ?",
                (found.status, found.exchange_order_id, found.filled_qty, found.avg_price, at, id_),
            )
            self._event(
                id_,
                kind,
                {
                    "status": found.status,
                    "exchangeOrderId": found.exchange_order_id,
                    "filledQty": found.filled_qty,
                    "avgPrice": found.avg_price,
                },
                at,
            )
            return self._must_order(id_)

        return self._tx(write)

    def _set_state(self, id_: str, state: str, kind: str, detail: Mapping[str, Any], last_error: Optional[str] = None) -> OrderRow:
        at = self.now()

        def write() -> OrderRow:
            self.con.execute(
                "UPDATE orders SET state = ?, last_error = coalesce(?, last_error), updated_at = ?, version = version + 1 "
                "WHERE client_order_id = ?",
                (state, last_error, at, id_),
            )
            self._event(id_, kind, detail, at)
            return self._must_order(id_)

        return self._tx(write)

    def _note_error(self, id_: str, kind: str, message: str, detail: Mapping[str, Any]) -> None:
        at = self.now()

        def write() -> None:
            self.con.execute(
                "UPDATE orders SET last_error = ?, updated_at = ?, version = version + 1 WHERE client_order_id = ?", (message, at, id_)
            )
            self._event(id_, kind, {**detail, "error": message}, at)

        self._tx(write)

    def _count_attempt(self, id_: str) -> int:
        def write() -> int:
            self.con.execute(
                "UPDATE orders SET attempts = attempts + 1, updated_at = ?, version = version + 1 WHERE client_order_id = ?",
                (self.now(), id_),
            )
            return self._must_order(id_).attempts

        return self._tx(write)

    def _lookup(self, order: OrderRow, lookup: Callable[[str, str], Any]) -> Tuple[str, Any]:
        """found (copied into the journal) / absent (proved missing) / failed (cannot tell)."""
        try:
            found = lookup(order.client_order_id, order.symbol)
        except Exception as error:  # any failure of the lookup means: nobody knows
            message = f"lookup failed: {_error_text(error)}"
            self._note_error(order.client_order_id, "error", message, {"during": "lookup"})
            return "failed", message
        if found is None:
            return "absent", None
        return "found", self._apply_exchange_order(order.client_order_id, _as_exchange_order(found), "lookup_found")

    def send_once(
        self,
        order: Any,
        send: Callable[[OrderRequest], Any],
        lookup: Callable[[str, str], Any],
        *,
        reduce_only: bool = False,
    ) -> SendOutcome:
        """Sends a decision at most once.

        send(request) places the order (request.client_order_id as the exchange's client order id)
        and returns an ExchangeOrder; it raises SendTimeout (or any TimeoutError) when the reply is
        lost, OrderRejected when the exchange refused it, anything else when it failed.
        lookup(client_order_id, symbol) returns the exchange's ExchangeOrder, None only when the
        exchange proves it does not have the order, and raises when it cannot tell.

        The intent is committed before the send; before every retry the id is looked up and the
        order is resent only when the lookup proved it absent; when nobody can say after the last
        attempt, the order becomes `unknown` and the breaker trips. Unless reduce_only, the breaker is
        read from the journal first and BreakerHalted raised while it is halted.
        """
        o = _as_order(order)
        if not reduce_only:
            b = self.breaker()
            if b.halted:
                raise BreakerHalted(self.bot_id, b.reason)
        intent, inserted = self.record_intent(o)
        # Only a fresh intent, or an order a lookup proved absent, may be sent. Anything else is
        # already on its way, settled, or doubtful: sending again would be the blind retry.
        if not inserted and intent.state not in ("absent", "created"):
            return SendOutcome("existing", intent)
        id_ = intent.client_order_id
        if not inserted and intent.state == "created":
            # A previous run died between the intent and the send (or during it): ask first.
            kind, value = self._lookup(intent, lookup)
            if kind == "found":
                return SendOutcome("placed", value)
            if kind == "failed":
                return self._declare_unknown(id_, value)
            self._event(id_, "lookup_absent", {"during": "resume"})
        last_error = "no attempt made"
        send_error: Optional[str] = None  # the last send's own failure: an unknown order's reason starts with it
        for attempt in range(self.retry_attempts):
            if attempt > 0:
                self._sleep(self.backoff_ms * 2 ** (attempt - 1))
                kind, value = self._lookup(self._must_order(id_), lookup)
                if kind == "found":
                    return SendOutcome("placed", value)
                if kind == "failed":
                    last_error = value
                    continue  # cannot tell: never send on top of a doubt
                self._event(id_, "lookup_absent", {"during": "retry", "attempt": attempt})
            n = self._count_attempt(id_)
            try:
                reply = send(OrderRequest(id_, o.symbol, o.side, o.qty, reduce_only))
            except OrderRejected as error:
                row = self._set_state(id_, "rejected", "status", {"status": "rejected", "reason": error.reason, "attempt": n}, _error_text(error))
                return SendOutcome("rejected", row, error.reason)
            except Exception as error:
                last_error = _error_text(error)
                send_error = last_error
                if isinstance(error, TimeoutError):
                    self._note_error(id_, "timeout", last_error, {"attempt": n})
                elif isinstance(error, DuplicateClientOrderId):
                    self._note_error(id_, "error", last_error, {"attempt": n, "duplicate": True})
                elif isinstance(error, RateLimited):
                    self._note_error(id_, "error", last_error, {"attempt": n, "rateLimited": True})
                else:
                    self._note_error(id_, "error", last_error, {"attempt": n})
                continue
            return SendOutcome("placed", self._apply_exchange_order(id_, _as_exchange_order(reply), "send"))
        kind, value = self._lookup(self._must_order(id_), lookup)
        if kind == "found":
            return SendOutcome("placed", value)
        return self._declare_unknown(id_, _unknown_why(send_error, value if kind == "failed" else last_error))

    def _declare_unknown(self, id_: str, why: str) -> SendOutcome:
        row = self._set_state(id_, "unknown", "status", {"status": "unknown", "why": why}, why)
        self.trip(f"order {id_} unknown: {why}")
        self._alert("unknown_order", f"order {id_} is unknown after {row.attempts} attempt(s): {why}")
        return SendOutcome("unknown", row)

    def refresh(self, client_order_id_value: str, lookup: Callable[[str, str], Any]) -> OrderRow:
        """Asks the exchange about one order and copies the answer (polling an order in flight)."""
        row = self._must_order(client_order_id_value)
        kind, value = self._lookup(row, lookup)
        if kind == "found":
            return value
        if kind == "absent":
            return self._set_state(client_order_id_value, "absent", "lookup_absent", {"during": "refresh"})
        return self._must_order(client_order_id_value)

    def resolve_doubtful(self, lookup: Callable[[str, str], Any]) -> RecoveryReport:
        """At start-up: every order of this bot that is not settled is looked up. Found: its status is
        copied. Proved missing: `absent` (resendable with the same id). Lookup failed: `unknown`, and
        the breaker trips, because nobody knows what the exchange holds."""
        pending = self.unsettled_orders()
        report = RecoveryReport(checked=len(pending))
        for row in pending:
            kind, value = self._lookup(row, lookup)
            if kind == "found":
                report.found.append(row.client_order_id)
            elif kind == "absent":
                self._set_state(row.client_order_id, "absent", "lookup_absent", {"during": "recovery"})
                report.absent.append(row.client_order_id)
            else:
                if row.state != "unknown":
                    self._set_state(row.client_order_id, "unknown", "status", {"status": "unknown", "why": value}, value)
                report.unknown.append(row.client_order_id)
        if report.unknown:
            ids = ", ".join(report.unknown)
            self.trip(f"{len(report.unknown)} order(s) unknown after startup recovery: {ids}")
            self._alert("unknown_order", f"startup recovery could not settle {ids}")
        return report

    def unsettled_orders(self) -> List[OrderRow]:
        """This bot's orders that are not settled, oldest first. The `state NOT IN (settled)` term
        repeats the partial index's condition, so this costs what is open, never the history."""
        rows = self.con.execute(
            f"SELECT {_ORDER_COLUMNS} FROM orders WHERE bot_id = ? AND state NOT IN ({_SETTLED_SQL}) ORDER BY created_at",
            (self.bot_id,),
        ).fetchall()
        return [OrderRow(*r) for r in rows]

    def orders_in_flight(self) -> int:
        return self.con.execute(
            f"SELECT count(*) FROM orders WHERE bot_id = ? AND state NOT IN ({_SETTLED_SQL}) AND state IN ({_IN_FLIGHT_SQL})",
            (self.bot_id,),
        ).fetchone()[0]

    # --- books and reconciliation -------------------------------------------------------------

    def book(self) -> Dict[str, float]:
        """The bot's own book: the fills of its strategies' orders (reconcile closes excluded), plus
        every book correction an operator wrote for this bot (docs/journal.md, "Book corrections").
        Read from the journal each time, so a correction counts from the next cycle on."""
        rows = self.con.execute(
            "SELECT symbol, sum(size) AS size FROM ("
            " SELECT symbol, CASE side WHEN 'buy' THEN filled_qty ELSE -filled_qty END AS size"
            f" FROM orders WHERE bot_id = ? AND strategy <> '{RECONCILE_STRATEGY}'"
            " UNION ALL"
            " SELECT symbol, delta AS size FROM book_corrections WHERE bot_id = ?"
            ") AS fills GROUP BY symbol",
            (self.bot_id, self.bot_id),
        ).fetchall()
        return {symbol: size for symbol, size in rows}

    def book_corrections(self, after_id: int = 0) -> List[Dict[str, Any]]:
        """For a bot that keeps its book in memory: the corrections after the last one it applied
        (remember the last id across restarts), oldest first; add each `delta` to your book."""
        rows = self.con.execute(
            "SELECT id, symbol, kind, delta, corrected_by, corrected_at FROM book_corrections WHERE bot_id = ? AND id > ? ORDER BY id",
            (self.bot_id, after_id),
        ).fetchall()
        return [dict(zip(("id", "symbol", "kind", "delta", "corrected_by", "corrected_at"), r)) for r in rows]

    def _step_for(self, specs: Mapping[str, Any], symbol: str) -> float:
        spec = specs.get(symbol)
        if spec is None:
            return self.unknown_symbol_qty_step
        if isinstance(spec, (int, float)) and not isinstance(spec, bool):
            return float(spec)
        if isinstance(spec, Mapping):
            return float(spec["qty_step"])
        return float(spec.qty_step)

    def _insert_reconciliation(self, at: str, outcome: str, in_flight: int, error: Optional[str]) -> int:
        sql = "INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight, error) VALUES (?, ?, ?, ?, ?)"
        params = (self.bot_id, at, outcome, in_flight, error)
        if self._pg:
            return self.con.execute(sql + " RETURNING id", params).fetchone()[0]
        return self.con.execute(sql, params).lastrowid

    def reconcile(
        self,
        ours: Optional[Mapping[str, float]],
        theirs: Union[Mapping[str, Any], Callable[[], Mapping[str, Any]]],
        specs: Mapping[str, Any],
        *,
        cancel_all: Callable[[str], Any],
        close_reduce_only: Callable[[str, str, float], Any],
        mark_prices: Optional[Callable[[List[str]], Mapping[str, float]]] = None,
    ) -> ReconcileReport:
        """One reconciliation cycle.

        ours: the bot's book per symbol, or None for book() (fills plus book corrections: the usual
        choice). theirs: the exchange's positions, symbol -> size or Position(size, mark_price), or a
        callable returning them (called only when the cycle is not skipped; raising makes an `error`
        cycle). specs: the symbols the bot trades -> qty_step (a number, {"qty_step": ...} or an
        object with .qty_step); each is compared even where both sides are flat. mark_prices(symbols)
        prices the symbols the positions left unpriced, so every compared line carries a mark.
        cancel_all(symbol) and close_reduce_only(client_order_id, symbol, size) act on an unknown
        position (close_reduce_only returns an ExchangeOrder, like send).

        Skipped while orders are in flight. Otherwise the cycle and its lines are written in one
        transaction; an unknown position has its symbol's orders canceled and is closed reduce-only
        (unless an order of the bot on that symbol is unknown: it may be that very order); every
        drift trips the breaker with this cycle as its cause.
        """
        at = self.now()
        in_flight = self.orders_in_flight()
        if in_flight > 0:
            rid = self._tx(lambda: self._insert_reconciliation(at, "skipped", in_flight, None))
            return ReconcileReport("skipped", rid, orders_in_flight=in_flight)
        try:
            positions = theirs() if callable(theirs) else theirs
            their_sizes: Dict[str, float] = {}
            marks: Dict[str, Optional[float]] = {}
            for symbol, p in positions.items():
                if isinstance(p, Position):
                    their_sizes[symbol], marks[symbol] = p.size, p.mark_price
                elif isinstance(p, (tuple, list)):
                    their_sizes[symbol], marks[symbol] = p[0], p[1]
                else:
                    their_sizes[symbol] = p
        except Exception as error:
            message = f"fetch positions failed: {_error_text(error)}"
            rid = self._tx(lambda: self._insert_reconciliation(at, "error", 0, message))
            self._alert("reconciliation_error", message)
            return ReconcileReport("error", rid, error=message)
        book = dict(self.book() if ours is None else ours)
        for symbol in specs:
            book.setdefault(symbol, 0)
        unpriced = [s for s in dict.fromkeys([*book, *their_sizes]) if marks.get(s) is None]
        if unpriced and mark_prices is not None:
            try:
                for symbol, mark in mark_prices(unpriced).items():
                    marks[symbol] = mark
            except Exception as error:
                # A missing mark costs the console a value, not the cycle its comparison.
                self._alert("reconciliation_error", f"fetch mark prices failed: {_error_text(error)}")
        lines = []
        for symbol in sorted(set(book) | set(their_sizes), key=_utf16_key):
            o, t, step = book.get(symbol, 0), their_sizes.get(symbol, 0), self._step_for(specs, symbol)
            lines.append(BookLine(symbol, o, t, step, marks.get(symbol), drift_class(o, t, step)))
        drifts = [line for line in lines if line.drift != "none"]
        outcome = "drift" if drifts else "clean"

        def write() -> int:
            rid = self._insert_reconciliation(at, outcome, 0, None)
            self.con.executemany(
                "INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, ?)",
                [(rid, line.symbol, line.ours, line.theirs, line.qty_step, line.mark_price) for line in lines],
            )
            return rid

        rid = self._tx(write)
        # A symbol with an order of ours in doubt: the "unknown" position may be that very order,
        # filled while its reply was lost. Closing it would sell what the bot bought. Trip and leave
        # it to a person (or the lookup).
        doubtful = {r.symbol: r.client_order_id for r in self.unsettled_orders() if r.state == "unknown"}
        tripped = False
        for d in drifts:
            in_doubt = doubtful.get(d.symbol)
            if d.drift == "unknown_position" and in_doubt is not None:
                reason = f"position {d.symbol} {_signed(d.theirs)} the book does not hold, while order {in_doubt} on it is unknown: not closed"
                tripped = self.trip(reason, rid) or tripped
                self._alert("unknown_position", reason, d)
            elif d.drift == "unknown_position":
                self._flatten(d, at, cancel_all, close_reduce_only)
                reason = f"unknown position {d.symbol} {_signed(d.theirs)}"
                tripped = self.trip(reason, rid) or tripped
                self._alert("unknown_position", reason, d)
            else:
                reason = f"size drift {d.symbol}: book {_signed(d.ours)} vs exchange {_signed(d.theirs)}"
                tripped = self.trip(reason, rid) or tripped
                self._alert("size_drift", reason, d)
        return ReconcileReport(outcome, rid, lines, tripped)

    def _flatten(self, d: BookLine, at: str, cancel_all: Callable[[str], Any], close_reduce_only: Callable[[str, str, float], Any]) -> None:
        """Cancel the symbol's orders, then close the position the bot never opened, reduce-only."""
        try:
            cancel_all(d.symbol)
        except Exception as error:
            self._alert("unknown_position", f"cancel orders on {d.symbol} failed: {_error_text(error)}", d)
        close = Order(RECONCILE_STRATEGY, d.symbol, "sell" if d.theirs > 0 else "buy", abs(d.theirs), at)
        row, inserted = self.record_intent(close)
        if not inserted:
            return
        n = self._count_attempt(row.client_order_id)
        try:
            reply = close_reduce_only(row.client_order_id, d.symbol, d.theirs)
        except OrderRejected as error:
            self._set_state(
                row.client_order_id, "rejected", "status", {"status": "rejected", "reason": error.reason, "attempt": n}, _error_text(error)
            )
            return
        except Exception as error:
            # The close's fate is unknown: the breaker is tripping anyway; say so on the order.
            self._set_state(row.client_order_id, "unknown", "timeout", {"attempt": n, "error": _error_text(error)}, _error_text(error))
            return
        self._apply_exchange_order(row.client_order_id, _as_exchange_order(reply), "send")
