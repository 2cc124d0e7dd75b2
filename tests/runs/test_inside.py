"""A run directory someone sent: reading it (load_run, report, plot) reads only its own regular files, never
what a symlink points to outside it, never the network; what it writes never goes through a planted link;
a damaged or half-made run is one clear line, no traceback."""

import json
import shutil
import socket

import pytest

from lostmid_jax import cli, present, runs
from lostmid_jax.runs.inside import check_inside, inside

@pytest.fixture
def copy(tiny_run, tmp_path):
    target = tmp_path / "received"
    shutil.copytree(tiny_run, target)
    return target


def _one_line(argv, capsys, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_symlinks_out_of_the_run_are_refused_and_inside_ones_kept(copy, tmp_path):
    (tmp_path / "secret.txt").write_text("password")
    (copy / "verdict.txt").unlink()
    (copy / "verdict.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(ValueError, match="verdict.txt is a symlink to .*outside the run directory"):
        runs.load_run(copy)
    (copy / "verdict.txt").unlink()
    (copy / "verdict.txt").symlink_to(copy / "table.txt")  # inside: allowed
    assert runs.load_run(copy).verdict == (copy / "table.txt").read_text()
    assert inside(copy, "absent.txt") is None
    with pytest.raises(ValueError, match="not a regular file"):
        check_inside(copy, copy)


@pytest.mark.parametrize("name", ["results.csv", "columns.csv", "config.json", "fig1_u_curves.png"])
def test_the_report_never_embeds_a_file_a_symlink_points_to(copy, tmp_path, capsys, name):
    secret = tmp_path / "secret"
    secret.write_bytes((copy / name).read_bytes().replace(b"depth", b"SECRET") + b"SECRET")
    (copy / name).unlink()
    (copy / name).symlink_to(secret)
    _one_line(["report", str(copy), "--out", str(tmp_path / "r.html")], capsys, "outside the run directory")
    assert not (tmp_path / "r.html").exists()


def test_the_file_list_of_a_report_names_a_symlink_without_following_it(copy, tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 12345)
    (copy / "notes").symlink_to(tmp_path / "big")
    page = (present.write_report(copy, tmp_path / "r.html")).read_text()
    assert "symlink (not read)" in page and "12,345" not in page


def test_reading_a_stored_compare_config_never_reaches_the_hub(tmp_path, monkeypatch):
    """"weights": "someone/x", "allow_download": true: load_run validates the stored fields without resolving
    the checkpoint (before: load_run called huggingface_hub.snapshot_download and would fetch the weights)."""
    import huggingface_hub

    def refuse(*args, **kwargs):
        raise AssertionError(f"network or hub access while reading a run: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", refuse)
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "pretrained_vs_init", "status": "done",
                                                      "config": {"weights": "someone/x", "allow_download": True}}))
    run = runs.load_run(tmp_path)
    assert run.config.checkpoint.weights == "someone/x" and run.config.checkpoint.allow_download is True
    with pytest.warns(runs.StoredConfigWarning, match="length"):  # its own fields are still checked
        (tmp_path / "config.json").write_text(json.dumps({"experiment": "pretrained_vs_init", "config": {
            "weights": "someone/x", "allow_download": True, "length": 1}}))
        runs.load_run(tmp_path)


def _with_weights():
    import dataclasses

    from lostmid_jax.experiments import EXPERIMENTS, load

    names = lambda cls: {f.name for f in dataclasses.fields(cls)}  # noqa: E731
    return [name for name in EXPERIMENTS  # weights in the config's checkpoint group (probes.settings)
            if "checkpoint" in names(load(name).Config)]


@pytest.mark.parametrize("name", _with_weights())
def test_no_experiment_resolves_stored_weights_when_read(name, tmp_path, monkeypatch):
    """Every experiment whose config names weights: load_run of a stored hub id with downloads allowed
    touches neither the hub nor the network."""
    import huggingface_hub

    def refuse(*args, **kwargs):
        raise AssertionError(f"network or hub access while reading a {name} run")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", refuse)
    (tmp_path / "config.json").write_text(json.dumps({"experiment": name, "status": "done",
                                                      "config": {"weights": "someone/x", "allow_download": True}}))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", runs.StoredConfigWarning)  # other fields may need values; never the hub
        assert runs.load_run(tmp_path).config.checkpoint.weights == "someone/x"  # flat fields of earlier runs too


@pytest.mark.parametrize("config,message", [(None, "must be an object"), ([1, 2], "must be an object"),
                                            ('"x"', "must be an object")])
def test_config_json_whose_config_is_not_an_object_is_one_line(copy, capsys, config, message):
    (copy / "config.json").write_text('{"experiment": "depth_sweep", "config": %s}' % json.dumps(config))
    _one_line(["report", str(copy)], capsys, message)
    _one_line(["plot", str(copy)], capsys, message)


def test_report_and_plot_of_a_run_missing_results_csv_are_one_line(copy, tmp_path, capsys):
    (copy / "results.csv").unlink()
    for p in copy.glob("*.png"):
        p.unlink()
    _one_line(["report", str(copy), "--out", str(tmp_path / "r.html")], capsys, "'results' is missing")
    _one_line(["plot", str(copy), "--out", str(tmp_path / "figs")], capsys, "'results' is missing")


def test_plot_out_refuses_a_directory_holding_another_run(tiny_run, copy, capsys):
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    _one_line(["plot", str(tiny_run), "--format", "png", "--out", str(copy)], capsys, "holds another run")
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before


def test_report_and_plot_write_through_no_planted_temporary(copy, tmp_path, capsys):
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    for name in (".report.html.tmp", "report.html.tmp", ".fig1_u_curves.png.tmp"):
        (copy / name).symlink_to(victim)
    assert cli.main(["report", str(copy)]) == 0
    assert cli.main(["plot", str(copy), "--format", "png"]) == 0
    assert victim.read_text() == "precious\n"


def test_oserror_is_one_exit_2_line_naming_the_path(copy, tmp_path, capsys, monkeypatch):
    """Read-only directory, no space left, file too large: one line naming the file, no traceback."""
    import errno
    import os

    from lostmid_jax import atomic

    for code in (errno.ENOSPC, errno.EFBIG, errno.EACCES):
        real = os.fdopen

        def failing(fd, *args, code=code, **kwargs):
            f = real(fd, *args, **kwargs)

            class Full:
                def __enter__(self):
                    return self

                def __exit__(self, *exc):
                    f.close()

                def write(self, data):
                    raise OSError(code, os.strerror(code))

                def __getattr__(self, name):
                    return getattr(f, name)

            return Full()

        monkeypatch.setattr(atomic.os, "fdopen", failing)
        _one_line(["report", str(copy), "--out", str(tmp_path / "r.html")], capsys,
                  f"{tmp_path / 'r.html'}: {os.strerror(code)}")
        monkeypatch.undo()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".r.html")]
    if os.geteuid() != 0:  # root writes anywhere: the read-only case needs an ordinary user
        (tmp_path / "ro").mkdir(mode=0o500)
        _one_line(["report", str(copy), "--out", str(tmp_path / "ro" / "r.html")], capsys, "Permission denied")
