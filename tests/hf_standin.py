"""A local stand-in of the Hugging Face Hub endpoint (model info, auth check, file resolve with
ranges): the download tests never touch the network."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHA = "0" * 40


class Hub:
    def __init__(self) -> None:
        self.repos: dict[str, dict] = {}  # repo -> {"gated": bool, "files": {name: bytes}}
        self.grants: set[tuple[str, str]] = set()  # (token, repo) with accepted terms
        self.downloads: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def add(self, repo: str, files: dict[str, bytes], *, gated: bool = False) -> None:
        self.repos[repo] = {"gated": gated, "files": files}

    def allowed(self, repo: str, auth: str | None) -> bool:
        token = (auth or "").removeprefix("Bearer ").strip()
        return not self.repos[repo]["gated"] or (token, repo) in self.grants

    def __enter__(self) -> "Hub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(hub: Hub):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(
            self, code: int, body: bytes = b"", headers: dict | None = None, head: bool = False
        ) -> None:
            self.send_response(code)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _repo_of(self, path: str) -> tuple[str | None, str]:
            for repo in hub.repos:
                if path.startswith(repo + "/") or path == repo:
                    return repo, path[len(repo) :].lstrip("/")
            return None, ""

        def _api(self) -> None:
            path = self.path.split("?", 1)[0].removeprefix("/api/models/")
            repo, rest = self._repo_of(path)
            if repo is None:
                return self._send(404, b"{}", {"X-Error-Code": "RepoNotFound"})
            if rest == "auth-check":
                if hub.allowed(repo, self.headers.get("Authorization")):
                    return self._send(200, b"{}")
                return self._send(403, b'{"error":"gated"}', {"X-Error-Code": "GatedRepo"})
            entry = hub.repos[repo]
            if rest.startswith("tree/"):  # snapshot_download lists the files
                tree = [
                    {"type": "file", "path": n, "size": len(b), "oid": hashlib.sha1(b).hexdigest()}
                    for n, b in entry["files"].items()
                ]
                return self._send(200, json.dumps(tree).encode(), {"Content-Type": "application/json"})
            body = {
                "id": repo,
                "sha": SHA,
                "gated": "manual" if entry["gated"] else False,
                "siblings": [{"rfilename": n, "size": len(b)} for n, b in entry["files"].items()],
            }
            return self._send(200, json.dumps(body).encode(), {"Content-Type": "application/json"})

        def _file(self, head: bool) -> None:
            m = re.match(r"^/(.+?)/resolve/[^/]+/(.+)$", self.path.split("?", 1)[0])
            repo, _ = self._repo_of(m.group(1) if m else "")
            if m is None or repo is None or m.group(2) not in hub.repos[repo]["files"]:
                return self._send(404, b"", {"X-Error-Code": "EntryNotFound"}, head)
            if not hub.allowed(repo, self.headers.get("Authorization")):
                return self._send(403, b"", {"X-Error-Code": "GatedRepo"}, head)
            data = hub.repos[repo]["files"][m.group(2)]
            headers = {"X-Repo-Commit": SHA, "ETag": f'"{hashlib.sha1(data).hexdigest()}"'}
            start = 0
            if (rng := self.headers.get("Range")) and (r := re.match(r"bytes=(\d+)-", rng)):
                start = int(r.group(1))
                headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            if not head:
                hub.downloads.append(f"{repo}/{m.group(2)}@{start}")
            return self._send(206 if start else 200, data[start:], headers, head)

        def do_HEAD(self) -> None:
            self._file(head=True)

        def do_GET(self) -> None:
            if self.path.startswith("/api/models/"):
                return self._api()
            return self._file(head=False)

    return Handler
