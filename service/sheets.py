"""Stored game sheets: game records kept in an embedded SQLite database, each with a version.

A club types in a stack of paper sheets over days, from several phones or tabs; each sheet is a
``paiscan-game/1`` record (:mod:`paiscan.scoring.game_record`) checked and replayed before it is stored,
so a stored sheet always replays. Every write is one transaction (SQLite's journal in WAL mode with
``synchronous=FULL``: a write that returned survives a crash or a restart) and bumps the sheet's
``version``; a write that names the version it read (``expected``) and finds another is a
:class:`VersionConflict`, so two tabs editing one sheet never lose a hand silently.

The database's layout is versioned (``PRAGMA user_version``) and upgraded by :data:`MIGRATIONS` when
opened, one transaction per step.

>>> import tempfile, pathlib
>>> store = SheetStore(pathlib.Path(tempfile.mkdtemp()))
>>> s = store.create({"rules": "boo", "players": ["A", "B", "C", "D"], "hands": []})
>>> s.version, store.append_hand(s.id, {"result": "draw"}, expected=1).version
(1, 2)
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paiscan.scoring.errors import HandError
from paiscan.scoring.game_record import MAX_HANDS, GameReplay, dump_record, parse_record, replay

DB_NAME = "sheets.sqlite3"
#: the database layout's version (``PRAGMA user_version``); MIGRATIONS[v] upgrades v → v + 1
SCHEMA_VERSION = 1
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE sheets (
        id TEXT PRIMARY KEY,
        record TEXT NOT NULL,
        version INTEGER NOT NULL,
        title TEXT, date TEXT, rules TEXT NOT NULL, players TEXT NOT NULL, hands INTEGER NOT NULL,
        created TEXT NOT NULL, updated TEXT NOT NULL
    );
    CREATE INDEX sheets_updated ON sheets (updated);
    """,
)
#: seconds a writer waits for another's transaction before giving up (SQLite's busy timeout)
BUSY_TIMEOUT_S = 10.0


class SheetNotFound(LookupError):
    """No sheet with this id."""

    def __init__(self, sheet_id: str) -> None:
        super().__init__(f"no sheet {sheet_id!r}")
        self.sheet_id = sheet_id


class VersionConflict(Exception):
    """The sheet changed since the writer read it (``current`` is its version now)."""

    def __init__(self, sheet_id: str, expected: int, current: int) -> None:
        super().__init__(
            f"sheet {sheet_id!r} is at version {current}, not {expected}: it was changed elsewhere; "
            "reload it and apply the change again"
        )
        self.sheet_id, self.expected, self.current = sheet_id, expected, current


@dataclass(frozen=True)
class Sheet:
    """A stored sheet: the record (canonical JSON), its version and when it was written."""

    id: str
    record: Mapping[str, Any]
    version: int
    created: str
    updated: str

    def replay(self) -> GameReplay:
        return replay(parse_record(self.record))

    def summary(self) -> dict[str, Any]:
        rec = self.record
        return {
            "id": self.id,
            "title": rec.get("title"),
            "date": rec.get("date"),
            "rules": rec["rules"],
            "players": list(rec["players"]),
            "hands": len(rec["hands"]),
            "version": self.version,
            "updated": self.updated,
        }


def default_data_dir() -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME/paiscan`` (``~/.local/share/paiscan``), or
    ``%APPDATA%\\paiscan`` on Windows."""
    if os.name == "nt" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "paiscan"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paiscan"


def check_record(data: Any) -> tuple[dict[str, Any], GameReplay]:
    """The canonical record and its replay, or the :class:`HandError` naming the field: what is stored
    always replays."""
    rec = parse_record(data)
    return dump_record(rec), replay(rec)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class SheetStore:
    """The sheets in ``data_dir/sheets.sqlite3`` (created, and upgraded to :data:`SCHEMA_VERSION`, on
    opening). Safe to share between threads: each call opens its own connection."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_NAME
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            self._migrate(conn)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute("PRAGMA synchronous=FULL")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (BEGIN IMMEDIATE: a read-then-write is never interleaved)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path} has layout version {version}, newer than this paiscan's {SCHEMA_VERSION}: upgrade paiscan"
            )
        for step in range(version, SCHEMA_VERSION):
            conn.execute("BEGIN IMMEDIATE")
            try:
                if int(conn.execute("PRAGMA user_version").fetchone()[0]) == step:  # another process may have
                    for statement in MIGRATIONS[step].split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {step + 1}")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def schema_version(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    # ---- reads
    @staticmethod
    def _sheet(row: tuple[Any, ...]) -> Sheet:
        sid, record, version, created, updated = row
        return Sheet(sid, json.loads(record), int(version), created, updated)

    def _get(self, conn: sqlite3.Connection, sheet_id: str) -> Sheet:
        row = conn.execute(
            "SELECT id, record, version, created, updated FROM sheets WHERE id = ?", (sheet_id,)
        ).fetchone()
        if row is None:
            raise SheetNotFound(sheet_id)
        return self._sheet(row)

    def get(self, sheet_id: str) -> Sheet:
        with self._connect() as conn:
            return self._get(conn, sheet_id)

    def list(self) -> list[dict[str, Any]]:
        """Every sheet's summary (id, title, date, rules, players, hands, version, updated), newest first."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT id, title, date, rules, players, hands, version, updated FROM sheets ORDER BY updated DESC"
            ).fetchall()
        keys = ("id", "title", "date", "rules", "players", "hands", "version", "updated")
        return [{**dict(zip(keys, r, strict=True)), "players": json.loads(r[4])} for r in rows]

    # ---- writes
    def _store(
        self, conn: sqlite3.Connection, sheet_id: str, record: Mapping[str, Any], version: int, created: str
    ) -> Sheet:
        now = _now()
        conn.execute(
            "INSERT OR REPLACE INTO sheets (id, record, version, title, date, rules, players, hands, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                sheet_id,
                json.dumps(record, ensure_ascii=False),
                version,
                record.get("title"),
                record.get("date"),
                record["rules"],
                json.dumps(list(record["players"]), ensure_ascii=False),
                len(record["hands"]),
                created,
                now,
            ),
        )
        return Sheet(sheet_id, record, version, created, now)

    def create(self, data: Any) -> Sheet:
        """Check, replay and store a new sheet (nothing is stored when the record is invalid)."""
        record, _ = check_record(data)
        with self._write() as conn:
            return self._store(conn, secrets.token_hex(6), record, 1, _now())

    def replace(self, sheet_id: str, data: Any, expected: int | None) -> Sheet:
        """Replace a sheet's record; ``expected`` is the version the writer read (None: any)."""
        record, _ = check_record(data)
        with self._write() as conn:
            old = self._get(conn, sheet_id)
            self._check_version(old, expected)
            return self._store(conn, sheet_id, record, old.version + 1, old.created)

    def append_hand(self, sheet_id: str, hand: Any, expected: int | None) -> Sheet:
        """Add one hand at the end of the sheet (checked with the whole record, in one transaction)."""
        with self._write() as conn:
            old = self._get(conn, sheet_id)
            self._check_version(old, expected)
            if len(old.record["hands"]) >= MAX_HANDS:
                raise HandError("bad_field", f"a sheet holds at most {MAX_HANDS} hands", "hands")
            new = {**old.record, "hands": [*old.record["hands"], hand]}
            record, _ = check_record(new)
            return self._store(conn, sheet_id, record, old.version + 1, old.created)

    def delete(self, sheet_id: str, expected: int | None) -> None:
        with self._write() as conn:
            old = self._get(conn, sheet_id)
            self._check_version(old, expected)
            conn.execute("DELETE FROM sheets WHERE id = ?", (sheet_id,))

    @staticmethod
    def _check_version(sheet: Sheet, expected: int | None) -> None:
        if expected is not None and expected != sheet.version:
            raise VersionConflict(sheet.id, expected, sheet.version)


@dataclass(frozen=True)
class ImportResult:
    """One file of ``paiscan sheets import``: the sheet stored, or the error (nothing stored)."""

    path: Path
    sheet: Sheet | None = None
    error: Mapping[str, Any] | None = None
    disputes: Mapping[str, int] | None = None


def import_file(store: SheetStore, path: Path) -> ImportResult:
    """Store one record file (``.json``) or CSV sheet (``.csv``); a bad one is reported, never raised."""
    from paiscan.scoring.game_record import load_json_text
    from paiscan.service.sheet_csv import read_sheet_csv, sheet_line

    text = ""
    try:
        text = path.read_text(encoding="utf-8")
        data = read_sheet_csv(text) if path.suffix.lower() == ".csv" else load_json_text(text)
        sheet = store.create(data)
    except HandError as exc:
        err = exc.to_dict()["error"]
        line = sheet_line(text, exc.field) if path.suffix.lower() == ".csv" else None
        if line is not None:
            err = {**err, "message": f"{line}: {err['message']}"}
        return ImportResult(path, error=err)
    except (OSError, UnicodeDecodeError) as exc:
        return ImportResult(
            path, error={"code": "unreadable_input", "message": f"cannot read {path}: {exc}", "field": None}
        )
    kinds: dict[str, int] = {}
    for d in sheet.replay().disputes:
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
    return ImportResult(path, sheet=sheet, disputes=kinds)


def importable(folder: Path) -> list[Path]:
    """The record files (``*.json``) and CSV sheets (``*.csv``) of a folder, sorted by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".csv"))
