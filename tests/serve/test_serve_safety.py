"""``serve`` on a shared machine: its kubeconfig cannot be read or redirected by another user,
its token need not be on the command line, and it is honest about being in memory.

The kubeconfig holds the token, so it is written as kubectl writes its own
(``k8s.io/client-go/tools/clientcmd``, ``WriteToFile``: mode 0600), into a
directory only its user may enter, never through a link another user
planted. A watch resumed from a resourceVersion the store has not reached
(one of an earlier run: the store starts again from nothing) is answered as
the watch cache answers it (``k8s.io/apiserver/pkg/storage/errors.go``,
``NewTooLargeResourceVersionError``: 504 Timeout, cause ``ResourceVersionTooLarge``,
retry after 1 s, as the stream's one ERROR event), never left hanging. The
cacher waits up to 3 s for the version first; a store that is its own only
writer would never reach it, so this one answers at once.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.cli.serve import MSG_IN_MEMORY, TOKEN_ENV, _token, serve
from framework.objects import Pod
from tests.serve.helpers import request


@pytest.fixture
def shared_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the machine's, as every user sees it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def serve_once(**kwargs: object) -> int:
    """Run serve until it is ready (or refuses), then stop it; its exit code."""
    import threading

    stop = threading.Event()
    return serve(port=0, with_scheduler=False, stop=stop, on_ready=lambda *_: stop.set(), **kwargs)  # type: ignore[arg-type]


def test_the_default_kubeconfig_is_private_and_new(
    shared_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert serve_once() == 0
    out = capsys.readouterr().out
    directory = shared_tmp / f"ksf-serve-{os.getuid()}"
    (path,) = directory.glob("kubeconfig-*")
    assert f"kubeconfig: {path}" in out
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"note: {MSG_IN_MEMORY}" in out


@pytest.mark.parametrize("planted", ["a link to elsewhere", "a directory open to all"])
def test_a_directory_planted_by_another_user_is_refused(
    shared_tmp: Path, capsys: pytest.CaptureFixture[str], planted: str
) -> None:
    directory = shared_tmp / f"ksf-serve-{os.getuid()}"
    elsewhere = shared_tmp / "attacker"
    elsewhere.mkdir()
    if planted == "a link to elsewhere":
        directory.symlink_to(elsewhere)
    else:
        directory.mkdir()
        directory.chmod(0o777)
    assert serve_once() == 2
    assert "will not write the kubeconfig into" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []
    if planted != "a link to elsewhere":
        assert list(directory.iterdir()) == []


def test_a_named_kubeconfig_that_is_a_link_is_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "precious"
    victim.write_text("keep me")
    link = tmp_path / "kubeconfig"
    link.symlink_to(victim)
    assert serve_once(kubeconfig=str(link)) == 2
    assert "cannot write the kubeconfig" in capsys.readouterr().err
    assert victim.read_text() == "keep me"


def test_a_named_kubeconfig_is_made_owner_only_even_if_it_existed(tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text("old")
    path.chmod(0o644)
    assert serve_once(kubeconfig=str(path), token="t") == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "token" in path.read_text()


def test_the_token_comes_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    secret = tmp_path / "token"
    secret.write_text("s3cret\n")
    assert _token(None, str(secret)) == "s3cret"
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert _token(None, None) == "from-env"
    assert _token("on-the-line", None) == "on-the-line"
    assert "ps" in capsys.readouterr().err  # the command line is visible: it says so
    with pytest.raises(ValueError, match="not both"):
        _token("a", str(secret))


def test_listening_beyond_loopback_without_token_or_tls_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert serve_once(host="0.0.0.0", kubeconfig=str(tmp_path / "k")) == 0
    assert "with neither a token nor TLS" in capsys.readouterr().err


def test_a_missing_tls_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "cert.pem"
    assert serve_once(tls_cert_file=str(missing), tls_private_key_file=str(missing)) == 2
    assert capsys.readouterr().err == f"error: --tls-cert-file {missing}: no such file\n"


def test_a_watch_from_a_version_the_store_has_not_reached_is_504_too_large(
    server: APIHTTPServer, api: APIServer
) -> None:
    """As the cacher delivers it (``cacher_test.go``): the stream opens, one ERROR event says why."""
    current = int(api.current_resource_version())
    code, body = request(
        server.url, "GET", f"/api/v1/pods?watch=true&resourceVersion={current + 100}"
    )
    assert code == 200
    assert body["type"] == "ERROR"
    status = body["object"]
    assert (status["reason"], status["code"]) == ("Timeout", 504)
    assert status["message"] == (
        f"Timeout: Too large resource version: {current + 100}, current: {current}"
    )
    assert status["details"]["causes"] == [
        {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
    ]
    assert status["details"]["retryAfterSeconds"] == 1
    assert api.watcher_count(Pod) == 0
