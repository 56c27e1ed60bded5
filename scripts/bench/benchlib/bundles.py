"""Zipped and unzipped size of each deployment bundle in .build-lambda/bundles/*.zip
(written by scripts/bundle.sh); none there gives an empty list, reported as n/a."""

from __future__ import annotations

import glob
import os
import zipfile


def sizes(bundle_dir: str) -> list[dict]:
    rows = []
    for path in sorted(glob.glob(os.path.join(bundle_dir, "*.zip"))):
        with zipfile.ZipFile(path) as archive:
            unzipped = sum(info.file_size for info in archive.infolist())
        rows.append({"bundle": os.path.basename(path), "zipped_mib": os.path.getsize(path) / 2**20,
                     "unzipped_mib": unzipped / 2**20})
    return rows
