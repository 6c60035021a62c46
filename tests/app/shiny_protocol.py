"""A client of Shiny's WebSocket protocol, for server-level tests without a browser.

It speaks to a running app as a hostile page would: any value for any input id (a browser's
``Shiny.setInputValue`` sends exactly these ``update`` messages), and uploads through Shiny's
own ``uploadInit`` / POST / ``uploadEnd`` exchange. Outputs are rendered only when the client
says they are visible (``.clientdata_output_<id>_hidden = false``), as a page does.
"""
import json
import re
import time
import urllib.request

import websockets.sync.client as ws_client
from websockets.exceptions import ConnectionClosed

#: The outputs a page shows (the others are not rendered).
VISIBLE = ("budget_bar", "data_summary", "scree_plot_message", "score_plot_message", "scree_plan",
           "ledger_table")


class ShinyClient:
    """One browser session: ``init`` inputs, then ``update`` and read the outputs' HTML."""

    def __init__(self, url, inputs=None, headers=None):
        self.url = url
        self.socket = ws_client.connect(url.replace("http://", "ws://") + "websocket/",
                                        additional_headers=headers or {})
        self.html: dict[str, str] = {}
        self.errors: dict[str, dict] = {}
        self._tag = 0
        config = json.loads(self.socket.recv(timeout=30))
        self.session_id = config["config"]["sessionId"]
        hidden = {f".clientdata_output_{name}_hidden": False for name in VISIBLE}
        self._send({"method": "init", "data": {**hidden, **(inputs or {})}})
        self.settle(first=30)  # a new session always renders its visible outputs

    # ------------------------------------------------------------------ protocol
    def _send(self, message):
        self.socket.send(json.dumps(message))

    def _receive(self, timeout):
        message = json.loads(self.socket.recv(timeout=timeout))
        for name, value in (message.get("values") or {}).items():
            self.html[name] = value.get("html", "") if isinstance(value, dict) else str(value)
            self.errors.pop(name, None)
        for name, value in (message.get("errors") or {}).items():
            self.errors[name] = value
        return message

    def settle(self, timeout=60, first=0.5):
        """Read messages until the server is idle and has sent nothing more for half a second
        (waiting up to ``first`` seconds for its first answer)."""
        deadline = time.monotonic() + timeout
        busy, wait = False, first
        while time.monotonic() < deadline:
            try:
                message = self._receive(timeout=30 if busy else wait)
            except TimeoutError:
                if busy:
                    continue
                return
            wait = 0.5
            if message.get("busy") in ("busy", "idle"):
                busy = message["busy"] == "busy"

    def update(self, **inputs):
        """Send input values (what ``Shiny.setInputValue`` sends) and read the answers."""
        self._send({"method": "update", "data": inputs})
        self.settle()

    def press(self, button):
        """Press an action button (its value is a click count)."""
        self._tag += 1
        self.update(**{button: self._tag})

    def wait_for(self, output, pattern, timeout=120):
        """Read until ``output``'s HTML matches ``pattern``; the HTML."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.html.get(output, "")):
            if time.monotonic() > deadline:
                raise AssertionError(f"{output} never matched {pattern!r}: {self.html.get(output)!r}")
            try:
                self._receive(timeout=2)
            except TimeoutError:
                pass
        return self.html[output]

    def alive(self) -> bool:
        """Whether the session still answers: a change of k re-renders the visible plan."""
        try:
            self._send({"method": "update", "data": {"k": 3}})
            self._send({"method": "update", "data": {"k": 2}})
            self._receive(timeout=30)
            self.settle()
            return True
        except (ConnectionClosed, TimeoutError):
            return False

    def upload(self, name, content: bytes, input_id="csv_file"):
        """Upload ``content`` as Shiny's file input does; the file record Shiny stores."""
        self._tag += 1
        tag = self._tag
        self._send({"method": "uploadInit", "tag": tag,
                    "args": [[{"name": name, "size": len(content), "type": "text/csv"}]]})
        while True:
            message = self._receive(timeout=30)
            if message.get("response", {}).get("tag") == tag:
                job = message["response"]["value"]
                break
        request = urllib.request.Request(self.url + job["uploadUrl"], data=content, method="POST")
        urllib.request.urlopen(request, timeout=30).read()
        self._tag += 1
        self._send({"method": "uploadEnd", "tag": self._tag, "args": [job["jobId"], input_id]})
        self.settle()

    def close(self):
        self.socket.close()


def text_of(html: str) -> str:
    """The text of an output's HTML (tags removed)."""
    return re.sub(r"<[^>]+>", "", html or "")
