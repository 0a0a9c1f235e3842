"""The page's server answers its own page only: Host, Origin, Sec-Fetch-Site and the
session token checked on every request; the key never in a page; loopback only."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest
from ui_support import ORIGIN, SAMPLE, TOKEN, make_state, page_client

from linksync.config import resolve
from linksync.ui import UiState, create_ui_app, start_ui


async def test_the_page_itself_is_served_with_its_token_and_guard_headers(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert f'<meta name="linksync-token" content="{TOKEN}">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-store"
    assert (await client.get("/static/app.js")).status_code == 200


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({"Host": "evil.example:8765"}, "Host not allowed"),  # DNS rebinding
        ({"Host": "127.0.0.1:9999"}, "Host not allowed"),
        ({"Origin": "http://evil.example"}, "Origin not allowed"),
        ({"Origin": "null"}, "Origin not allowed"),
        ({"Origin": "http://127.0.0.1:9999"}, "Origin not allowed"),
        ({"Sec-Fetch-Site": "cross-site"}, "another web page"),
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/"), ("GET", "/api/state"), ("POST", "/api/uploads?name=a.csv")],
)
async def test_another_page_is_refused(
    state: UiState, headers: dict[str, str], why: str, method: str, path: str
) -> None:
    async with page_client(state, **headers) as http:
        answer = await http.request(method, path, content=b"slug,url\n")
    assert answer.status_code == 403
    assert why in answer.text
    assert state.uploads.list() == []


@pytest.mark.parametrize("token", [None, "", "wrong", TOKEN + "x"])
async def test_writes_need_the_session_token(state: UiState, token: str | None) -> None:
    async with page_client(state, token=token) as http, page_client(state) as page:
        posted = await http.post("/api/uploads?name=a.csv", content=b"x")
        assert posted.status_code == 403 and "session token" in posted.text
        good = await page.post("/api/uploads?name=a.csv", content=b"slug,url\n")
        assert good.status_code == 201
        upload_id = good.json()["id"]
        removed = await http.delete(f"/api/uploads/{upload_id}")
        assert removed.status_code == 403
    assert [u.upload_id for u in state.uploads.list()] == [upload_id]


async def test_a_plain_client_without_origin_may_read_but_not_write(state: UiState) -> None:
    transport = httpx.ASGITransport(app=create_ui_app(state))
    async with httpx.AsyncClient(transport=transport, base_url=ORIGIN) as http:
        assert (await http.get("/api/state")).status_code == 200
        assert (await http.post("/api/uploads?name=a.csv", content=b"x")).status_code == 403


async def test_the_key_of_a_real_target_never_reaches_the_page(tmp_path: Path) -> None:
    key = "sk_live_do_not_show_0123456789"
    settings = resolve(
        cwd=tmp_path, env={"LINKSYNC_BASE_URL": "https://api.example.com", "LINKSYNC_API_KEY": key}
    )
    ui = make_state(settings, tmp_path)
    async with page_client(ui) as http:
        page = (await http.get("/")).text
        api = (await http.get("/api/state")).text
    assert "https://api.example.com" in page and 'data-sandbox="false"' in page
    assert key not in page and key not in api
    ui.uploads.close()


def test_the_server_listens_on_loopback_only(tmp_path: Path) -> None:
    settings = resolve(cwd=tmp_path, env={}, sandbox=True)
    with start_ui(settings, runs_dir=tmp_path / "runs") as server:
        sockets = [s for srv in server.server.servers for s in srv.sockets]
        assert sockets and {s.getsockname()[0] for s in sockets} == {"127.0.0.1"}
        assert all(s.family == socket.AF_INET for s in sockets)
        port = sockets[0].getsockname()[1]
        assert server.url == f"http://127.0.0.1:{port}/"
        # Over a real socket, a request from another page is refused as well.
        evil = httpx.get(server.url, headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403
        rebound = httpx.get(server.url, headers={"Host": f"evil.example:{port}"})
        assert rebound.status_code == 403
        page = httpx.get(server.url)
        assert page.status_code == 200 and "SANDBOX" in page.text
        uploads = server.state.uploads.folder
        token = server.state.token
        sent = httpx.post(
            server.url + "api/uploads?name=campaign.xlsx",
            content=SAMPLE.read_bytes(),
            headers={"X-Linksync-Token": token, "Origin": server.url.rstrip("/")},
        )
        assert sent.status_code == 201
        assert any(uploads.rglob("campaign.xlsx"))
    assert not uploads.exists()  # deleted when the server stops
