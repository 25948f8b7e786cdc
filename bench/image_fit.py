"""Making an image fit the models' APIs (``app/image_fit.py``), beside the same run's reference.

    .venv/bin/python bench/image_fit.py [--repeat 5]

For each image: ``fitted`` (the header read; within the bounds the bytes as they are; over
them decoded, scaled down and written again) beside Pillow opening, decoding and writing
the same image again as PNG unscaled — the least any re-encoding costs. Images: a
screenshot within the bounds (1920 × 1080), a browser's full page over the 8,000 pixels
(1280 × 12,000, white), a photo-like image over the bytes (3000 × 2000 of noise, ~18 MB
as PNG: the worst case). Best of ``--repeat``, the two alternating; nothing here is a test.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # transducer.py, beside this file
from PIL import Image
from transducer import best_pair

from frontier.app.image_fit import fitted


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    images = {
        "screenshot 1920×1080": png(Image.new("RGB", (1920, 1080), "navy")),
        "full page 1280×12000": png(Image.new("RGB", (1280, 12_000), "white")),
        "noise 3000×2000": png(Image.frombytes("RGB", (3000, 2000), os.urandom(18_000_000))),
    }
    print(f"{'image':<22} {'bytes':>11} {'fitted':>10} {'re-encode':>10} {'ratio':>6}  result")
    for name, data in images.items():

        def ours(d: bytes = data) -> None:
            fitted(d, "image/png")

        def ref(d: bytes = data) -> None:
            with Image.open(io.BytesIO(d)) as image:
                png(image)

        mine, theirs = best_pair(ours, ref, repeat)
        fit = fitted(data, "image/png")
        said = fit if isinstance(fit, str) else (fit.done or "as it is")
        print(f"{name:<22} {len(data):>11,} {mine * 1e3:>8.1f}ms {theirs * 1e3:>8.1f}ms "
              f"{mine / theirs:>6.2f}  {said}")  # fmt: skip


if __name__ == "__main__":
    main()
