"""The service's settings, read from the environment (prefix ``PAISCAN_``).

>>> s = ServiceSettings(_env_file=None)
>>> s.max_upload_bytes, s.max_pixels, s.queue_size >= s.workers
(15000000, 40000000, True)
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class ServiceSettings(BaseSettings):
    """Everything ``paiscan serve`` can be told, each from ``PAISCAN_<NAME>`` (e.g. ``PAISCAN_WORKERS=2``)."""

    model_config = SettingsConfigDict(env_prefix="PAISCAN_", extra="ignore")

    models_dir: Path | None = Field(
        default=None, description="folder with localizer.onnx and classifier.onnx (default: the package's models)"
    )
    localizer_path: Path | None = Field(default=None, description="the localizer ONNX file (overrides models_dir)")
    classifier_path: Path | None = Field(default=None, description="the classifier ONNX file (overrides models_dir)")
    onnx_threads: int = Field(
        default=2,
        ge=1,
        le=64,
        description="onnxruntime intra-op threads per model (one gives ~10 % more photos a "
        "second under load on two cores, two a faster answer to one photo)",
    )
    reader: str | None = Field(
        default=None,
        description="'module:factory' building the photo reader instead of the ONNX models; the factory is called "
        "with these settings (paiscan.service.demo:DemoReader reads every photo as one fixed hand)",
    )

    max_upload_bytes: int = Field(default=15_000_000, ge=1024, description="largest photo upload, in bytes")
    max_json_bytes: int = Field(default=256 * 1024, ge=1024, description="largest JSON request body, in bytes")
    max_pixels: int = Field(default=40_000_000, ge=10_000, description="largest photo, in pixels (decompression bombs)")
    decode_max_side: int = Field(
        default=1000,
        ge=256,
        description="large JPEGs are decoded at reduced size down to about this long side (again larger when the "
        "tiles are small)",
    )
    zoom_min_px: float = Field(
        default=20.0,
        ge=0.0,
        le=200.0,
        description="when the tiles come out under this many pixels in the localizer's input, it looks again "
        "through closer windows (slower, finds far tiles); 0 turns it off",
    )
    recheck_below: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="a tile read with less certainty than this is read again from six more crops (a few ms); "
        "0 turns it off",
    )
    red_five_share: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="a five is read red only when the red five holds this share of the red and plain fives' "
        "probability (raise it for a set whose plain fives carry red ink); 0 keeps the classifier's reading",
    )
    preview_max_side: int = Field(default=1024, ge=64, le=4096, description="long side of the annotated preview")

    workers: int = Field(
        default_factory=_default_workers, ge=1, le=64, description="photos read at the same time (inference threads)"
    )
    queue_size: int = Field(
        default=8, ge=1, le=10_000, description="photos accepted at once, running and waiting; more are answered 503"
    )
    retry_after_s: int = Field(default=2, ge=1, le=3600, description="the Retry-After of a 503 busy answer")
    data_dir: Path | None = Field(
        default=None,
        description="folder of the stored game sheets' database (default: the per-user data folder, "
        "~/.local/share/paiscan)",
    )
    read_timeout_s: float = Field(
        default=2.0,
        gt=0.0,
        le=600.0,
        description="seconds one photo may take to decode and read once a worker has it; past it the answer is "
        "503 too_slow (paiscan.vision.deadline)",
    )
    queue_wait_s: float = Field(
        default=5.0,
        gt=0.0,
        le=600.0,
        description="seconds a photo may wait for a worker; past it the answer is 503 busy",
    )
    json_jobs: int = Field(
        default=8,
        ge=1,
        le=1024,
        description="scores and game replays computed at once; more are answered 503 busy",
    )

    header_timeout_s: float = Field(
        default=10.0, gt=0.0, le=600.0, description="seconds a connection may take to send a request's headers"
    )
    body_timeout_s: float = Field(
        default=15.0, gt=0.0, le=600.0, description="seconds a request body may pause between two of its chunks"
    )
    body_total_s: float = Field(
        default=60.0, gt=0.0, le=3600.0, description="seconds a whole request body may take to arrive"
    )
    keep_alive_s: float = Field(
        default=5.0, gt=0.0, le=600.0, description="seconds an idle keep-alive connection stays"
    )
    max_connections: int = Field(
        default=256, ge=1, le=100_000, description="open connections at once; more are answered 503 and closed"
    )
    shutdown_timeout_s: float = Field(
        default=10.0, gt=0.0, le=600.0, description="seconds a shutdown waits for requests in progress"
    )

    @model_validator(mode="after")
    def _queue_holds_workers(self) -> ServiceSettings:
        if self.queue_size < self.workers:
            self.queue_size = self.workers
        return self

    def model_paths(self) -> tuple[Path | None, Path | None]:
        """The two model files this configuration names (None: the vision package's default)."""
        loc, cls = self.localizer_path, self.classifier_path
        if self.models_dir is not None:
            loc = loc or self.models_dir / "localizer.onnx"
            cls = cls or self.models_dir / "classifier.onnx"
        return loc, cls
