"""deploy/'s files as Caddy and Streamlit read them: the Caddyfile adapts to a configuration with
each feature the recipe promises, app.env names real Streamlit options, and the preload header
names the Plotly bundle the installed Streamlit has. (tests/browser/test_class_through_proxy.py
runs the whole recipe with browsers.)"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from streamlit import config

from deploy import precompress
from deploy.stack import CADDYFILE, COOKIE, caddy_binary, read_env


@pytest.fixture(scope="module")
def caddy_json(tmp_path_factory) -> dict:
    """deploy/Caddyfile adapted by Caddy, with the environment deploy/stack.py gives it and a
    static folder holding only the preload snippet."""
    static = tmp_path_factory.mktemp("static")
    js = precompress.source() / "static" / "js"
    (static / precompress.PRELOAD).write_text(precompress.preload_snippet(js, "test"))
    env = dict(
        os.environ,
        SITE_ADDRESS=":8123",
        CADDY_BIND="127.0.0.1",
        CADDY_ADMIN="off",
        APP_UPSTREAMS="127.0.0.1:8601 127.0.0.1:8602",
        LB_COOKIE_SECRET="s3cret",
        STREAMLIT_STATIC=str(static),
    )
    out = subprocess.run(
        [caddy_binary(), "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def _handlers(node) -> list[dict]:
    """Every handler in a Caddy JSON configuration, subroutes included."""
    found = []
    if isinstance(node, dict):
        if "handler" in node:
            found.append(node)
        for value in node.values():
            found += _handlers(value)
    elif isinstance(node, list):
        for value in node:
            found += _handlers(value)
    return found


def test_the_proxy_compresses_sticks_by_cookie_and_checks_health(caddy_json) -> None:
    server = caddy_json["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == ["127.0.0.1:8123"]
    assert caddy_json["admin"] == {"disabled": True}
    handlers = _handlers(server["routes"])
    encode = next(h for h in handlers if h["handler"] == "encode")
    assert set(encode["encodings"]) == {"zstd", "gzip"} and encode["prefer"][0] == "zstd"
    proxy = next(h for h in handlers if h["handler"] == "reverse_proxy")
    assert [u["dial"] for u in proxy["upstreams"]] == ["127.0.0.1:8601", "127.0.0.1:8602"]
    policy = proxy["load_balancing"]["selection_policy"]
    assert policy == {"policy": "cookie", "name": COOKIE, "secret": "s3cret"}
    assert proxy["health_checks"]["active"]["uri"] == "/_stcore/health"
    assert proxy["health_checks"]["passive"]["fail_duration"] > 0
    assert proxy["load_balancing"]["try_duration"] > 0  # a request to a server that just died tries another


def test_streamlits_bundles_are_served_precompressed(caddy_json) -> None:
    handlers = _handlers(caddy_json["apps"]["http"]["servers"]["srv0"]["routes"])
    files = next(h for h in handlers if h["handler"] == "file_server")
    assert files["precompressed_order"] == ["zstd", "gzip"]


def test_a_class_s_pages_preload_the_plotly_bundle_streamlit_has(caddy_json) -> None:
    routes = caddy_json["apps"]["http"]["servers"]["srv0"]["routes"]
    (name,) = [p.name for p in (precompress.source() / "static" / "js").glob("PlotlyChart.*.js")]
    preloading = [
        route["match"]
        for route in routes
        for h in _handlers(route["handle"])
        if h["handler"] == "headers" and "add" in h["response"]
        if h["response"]["add"]["Link"] == [f"</static/js/{name}>; rel=modulepreload"]
    ]
    # The Class page and a join link, each as a page the browser navigates to; no other page.
    assert {json.dumps(m, sort_keys=True) for m in preloading} == {
        json.dumps([{"header": {"Accept": ["*text/html*"]}, "path": ["/class", "/class/"]}], sort_keys=True),
        json.dumps([{"header": {"Accept": ["*text/html*"]}, "query": {"room": ["*"]}}], sort_keys=True),
    }


def test_app_env_sets_real_streamlit_options() -> None:
    known = {option.env_var for option in config.get_config_options().values()}
    settings = read_env()
    streamlit_names = [name for name in settings if name.startswith("STREAMLIT_")]
    assert streamlit_names and set(streamlit_names) <= known, set(streamlit_names) - known
    assert settings["STREAMLIT_SERVER_ADDRESS"] == "127.0.0.1"  # only the proxy reaches the app servers
