"""The client's small files (config, watermarks): written whole or not at all."""

from __future__ import annotations

import pytest

from continuity_client.config import atomic_write


def test_atomic_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "state" / "watermark.json"
    atomic_write(target, '{"seq": 1}')
    atomic_write(target, '{"seq": 2}')
    assert target.read_text() == '{"seq": 2}'
    assert [path.name for path in target.parent.iterdir()] == ["watermark.json"]


def test_a_failed_write_raises_its_own_error_and_leaves_no_partial_file(tmp_path):
    # A directory where the file should go: the final rename fails after the temporary file
    # was written. The caller sees that OSError (not a NameError), and nothing is left over.
    target = tmp_path / "watermark.json"
    target.mkdir()
    with pytest.raises(OSError):
        atomic_write(target, '{"seq": 3}')
    assert [path.name for path in tmp_path.iterdir()] == ["watermark.json"]
    assert target.is_dir()
