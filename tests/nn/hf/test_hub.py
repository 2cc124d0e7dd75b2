"""nn.hf.hub.resolve_checkpoint and load_hf on hub ids, offline-first.

The Hugging Face cache is laid out by huggingface_hub itself: its own
``hf_hub_download`` / ``snapshot_download`` fetch a tiny checkpoint (written
with save_hf) from a loopback HTTP server that answers like the hub (no
network beyond 127.0.0.1), into a temporary cache directory. Lookups are then
made with every outbound connection refused.
"""

import hashlib
import http.server
import json
import socket
import threading

import numpy as np
import pytest

huggingface_hub = pytest.importorskip("huggingface_hub")

from lostmid_jax.nn import DecoderConfig, Decoder, load_hf, save_hf  # noqa: E402
from lostmid_jax.nn.hf.hub import resolve_checkpoint  # noqa: E402

REPO, COMMIT = "tester/tiny-gpt2", "0123456789abcdef0123456789abcdef01234567"


def _tiny_checkpoint(path):
    from flax import nnx

    cfg = DecoderConfig(depth=1, width=8, heads=2, max_positions=16, vocab_size=16, attention="softmax",
                        mask="causal", position="learned", norm="layernorm", norm_bias=True, pre_norm=True,
                        final_norm=True, mlp="gelu", qkv_bias=True, out_bias=True, mlp_bias=True, init="gpt2")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    return save_hf(model, cfg, path)


class _Hub(http.server.BaseHTTPRequestHandler):
    """Answers the requests huggingface_hub makes: the revision, its file tree, and each file."""

    files: dict = {}

    def _file(self, body: bool):
        if self.path.startswith(f"/api/models/{REPO}/revision/"):
            data = json.dumps({"id": REPO, "sha": COMMIT,
                               "siblings": [{"rfilename": name} for name in self.files]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        elif self.path.startswith(f"/api/models/{REPO}/tree/"):
            data = json.dumps([{"type": "file", "path": name, "size": len(blob),
                                "oid": hashlib.sha1(blob).hexdigest()} for name, blob in self.files.items()]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        elif self.path.startswith(f"/{REPO}/resolve/") and self.path.rsplit("/", 1)[-1] in self.files:
            data = self.files[self.path.rsplit("/", 1)[-1]]
            self.send_response(200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
        else:
            data = b"{}"
            self.send_response(404)
            self.send_header("X-Error-Code", "RepoNotFound")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_HEAD(self):  # noqa: N802 (http.server's naming)
        self._file(False)

    def do_GET(self):  # noqa: N802
        self._file(True)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(endpoint, checkpoint directory): a loopback hub serving REPO's files."""
    ckpt = _tiny_checkpoint(tmp_path_factory.mktemp("ckpt"))
    handler = type("Hub", (_Hub,), {"files": {p.name: p.read_bytes() for p in ckpt.iterdir()}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", ckpt
    server.shutdown()


@pytest.fixture
def offline(monkeypatch):
    """Refuse every outbound connection: any network use fails the test."""
    def refuse(self, address):
        raise AssertionError(f"network access to {address} during an offline lookup")
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture
def cached(hub, tmp_path, monkeypatch):
    """A temporary HF cache holding REPO, written by huggingface_hub's hf_hub_download; it is the default cache."""
    endpoint, ckpt = hub
    cache = tmp_path / "hf-cache"
    for name in ("config.json", "model.safetensors"):
        huggingface_hub.hf_hub_download(REPO, name, cache_dir=cache, endpoint=endpoint)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    return cache, ckpt


def test_local_directory_is_returned_unchanged(tmp_path):
    assert resolve_checkpoint(tmp_path) == tmp_path and resolve_checkpoint(str(tmp_path)) == tmp_path


def test_cached_hub_id_resolves_offline_to_the_snapshot(cached, offline):
    cache, ckpt = cached
    got = resolve_checkpoint(REPO)
    assert got == cache / f"models--{REPO.replace('/', '--')}" / "snapshots" / COMMIT
    assert (got / "config.json").read_bytes() == (ckpt / "config.json").read_bytes()
    info = huggingface_hub.scan_cache_dir(cache)  # huggingface_hub itself reads the layout back
    assert [r.repo_id for r in info.repos] == [REPO] and not info.warnings
    assert resolve_checkpoint(f"{REPO}@{COMMIT}") == got


def test_load_hf_accepts_a_cached_hub_id(cached, offline):
    _, ckpt = cached
    cfg, model = load_hf(REPO)
    cfg_local, local = load_hf(ckpt)
    assert cfg == cfg_local
    tokens = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(np.asarray(model.lm(tokens)), np.asarray(local.lm(tokens)))


def test_uncached_hub_id_says_how_to_fetch_it(tmp_path, offline):
    with pytest.raises(FileNotFoundError) as err:
        resolve_checkpoint("someone/not-cached", cache_dir=tmp_path)
    text = str(err.value)
    assert "hf download someone/not-cached" in text and "huggingface-cli download" in text
    assert "--allow-download" in text and str(tmp_path) in text
    with pytest.raises(FileNotFoundError, match="someone/not-cached"):
        load_hf("someone/not-cached")


@pytest.mark.parametrize("bad", ["/no/such/dir", "./nowhere", "a/b/c", ""])
def test_neither_directory_nor_hub_id(bad, offline):
    with pytest.raises(FileNotFoundError, match="path"):
        resolve_checkpoint(bad)


def test_a_file_is_not_a_checkpoint(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(FileNotFoundError, match="is a file"):
        resolve_checkpoint(tmp_path / "f")


def test_allow_download_fetches_through_huggingface_hub(hub, tmp_path, monkeypatch):
    endpoint, ckpt = hub
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)  # as HF_ENDPOINT=... would set them
    monkeypatch.setattr(huggingface_hub.constants, "HUGGINGFACE_CO_URL_TEMPLATE",
                        endpoint + "/{repo_id}/resolve/{revision}/{filename}")
    cache = tmp_path / "hf-cache"
    with pytest.raises(FileNotFoundError, match="not in the local"):
        resolve_checkpoint(REPO, cache_dir=cache)  # downloads not allowed: refused, nothing fetched
    assert not cache.exists() or not any(cache.glob("models--*"))
    got = resolve_checkpoint(REPO, cache_dir=cache, allow_download=True)
    assert {p.name for p in got.iterdir()} == {"config.json", "model.safetensors"}
    assert (got / "model.safetensors").read_bytes() == (ckpt / "model.safetensors").read_bytes()
