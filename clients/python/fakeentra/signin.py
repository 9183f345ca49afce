"""Headless sign-in: follows FakeEntra's server-rendered pages with plain HTTP GETs and form POSTs (no
JavaScript), as a person at a browser would, and stops at the app's redirect URI. A browser-free way to
get real authorization codes in tests; the pages themselves are proven in Chromium by the project's
browser tests."""
import html.parser
import re
import urllib.parse

import requests

FORWARD = re.compile(r"accept|yes|continue|sign in|next|submit|allow|verify|send", re.I)
BACKWARD = re.compile(r"cancel|no\b|back|decline|another|forgot|create|sign[- ]?up", re.I)


class _Forms(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self._current = None
        self._button = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._current = {"action": a.get("action", ""), "method": (a.get("method") or "get").lower(),
                             "id": a.get("id"), "inputs": [], "buttons": []}
            self.forms.append(self._current)
        elif self._current is not None and tag == "input":
            kind = (a.get("type") or "text").lower()
            if kind == "submit":
                self._current["buttons"].append({"name": a.get("name"), "value": a.get("value", ""), "text": a.get("value", ""), "id": a.get("id")})
            elif kind in ("checkbox", "radio"):
                if "checked" in a:
                    self._current["inputs"].append({"name": a.get("name"), "value": a.get("value", "on"), "type": kind})
                else:
                    self._current["inputs"].append({"name": a.get("name"), "value": a.get("value", "on"), "type": kind, "unchecked": True})
            else:
                self._current["inputs"].append({"name": a.get("name"), "value": a.get("value", ""), "type": kind, "id": a.get("id")})
        elif self._current is not None and tag == "button":
            self._button = {"name": a.get("name"), "value": a.get("value", ""), "text": "", "id": a.get("id"),
                            "type": (a.get("type") or "submit").lower()}
            self._current["buttons"].append(self._button)

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag):
        if tag == "button":
            self._button = None
        elif tag == "form":
            self._current = None


def parse_forms(page):
    parser = _Forms()
    parser.feed(page)
    return parser.forms


def _pick_button(form, want_forward=True, label=None):
    buttons = [b for b in form["buttons"] if b.get("type", "submit") == "submit"]
    for b in buttons:
        text = (b["text"] or b["value"] or "").strip()
        if label is not None:
            if re.search(label, text, re.I) or re.search(label, b.get("id") or "", re.I) or re.search(label, b.get("value") or "", re.I):
                return b
        elif want_forward and FORWARD.search(text) and not BACKWARD.search(text):
            return b
    return None if label is not None else (buttons[0] if buttons else None)


class SignInError(Exception):
    def __init__(self, message, page):
        super().__init__(message)
        self.page = page


def _shown_error(page):
    """The refusal a page shows in its alert (`role="alert"`: AADSTS50126, B2C's messages), as plain text."""
    found = re.search(r'<[^>]*role="alert"[^>]*>(.*?)</', page, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip() if found else ""


def drive(url, username, password, stop_at, session=None, consent="accept", verify=None, max_steps=15, mfa_code=None, visited=None, new_password=None):
    """Follows pages from `url` until a redirect (or form post) to a URL starting with `stop_at`.
    Returns (final_url, form_fields_or_None, session). `consent` is "accept" or "cancel".
    A `visited` list receives the text of every page shown on the way; `new_password`, when given, goes
    in the new-password fields of a password-change page."""
    session = session or requests.Session()
    if verify is not None:
        session.verify = verify
    response = session.get(url, allow_redirects=False)
    return drive_response(response, username, password, stop_at, session, consent, max_steps, mfa_code, visited=visited, new_password=new_password)


ANY_CODE = "123456"


def _mailed_code(session, page_url, username, client_id=None):
    """The newest code FakeEntra's outbox holds for `username` (B2C's password reset, External ID's e-mail
    codes), as a person reads it in their inbox, in the world the app's sign-in went to (`client_id`); None
    where nothing was mailed (the MFA page takes any six digits) or the control API does not answer."""
    origin = urllib.parse.urlsplit(page_url)
    try:
        params = {"to": username, **({"clientId": client_id} if client_id else {})}
        answer = session.get(f"{origin.scheme}://{origin.netloc}/_fakeentra/outbox", params=params, allow_redirects=False, timeout=10)
        messages = answer.json().get("messages", []) if answer.status_code == 200 else []
    except (requests.RequestException, ValueError):
        return None
    return messages[-1]["code"] if messages else None


def drive_response(response, username, password, stop_at, session, consent="accept", max_steps=15, mfa_code=None, until_final_page=False, visited=None, new_password=None):
    """Like `drive`, from a response already received. With `until_final_page`, a page without a form
    (e.g. the device login's "you have signed in") ends the walk and is returned as ("page", text, session)."""
    client_id, submitted = None, None
    for _ in range(max_steps):
        client_id = client_id or urllib.parse.parse_qs(urllib.parse.urlsplit(response.url).query).get("client_id", [None])[0]
        if response.is_redirect or response.status_code in (301, 302, 303, 307, 308):
            location = urllib.parse.urljoin(response.url, response.headers["Location"])
            if location.startswith(stop_at):
                return location, None, session
            response = session.get(location, allow_redirects=False)
            continue
        if visited is not None:
            visited.append(response.text)
        if response.status_code >= 400 and "<form" not in response.text:
            raise SignInError("HTTP %d" % response.status_code, response.text)
        forms = parse_forms(response.text)
        if not forms:
            if until_final_page and response.status_code == 200:
                return "page", response.text, session
            raise SignInError("page without a form", response.text)
        form = forms[0]
        action = urllib.parse.urljoin(response.url, form["action"] or response.url)
        fields = {}
        names = {i["name"] for i in form["inputs"] if i.get("name")}
        # The form just submitted, back with an alert: the page refused what was entered (a wrong password,
        # an unknown user, a wrong code). Entering the same again would only loop.
        shown = _shown_error(response.text)
        if shown and submitted == (action, frozenset(names)):
            raise SignInError(f"the sign-in page refused it: {shown}", response.text)
        submitted = (action, frozenset(names))
        for i in form["inputs"]:
            if not i.get("name") or i.get("unchecked"):
                continue
            fields[i["name"]] = i["value"]
        if action.startswith(stop_at):
            # response_mode=form_post: the page posts the result to the app.
            return action, fields, session
        password_inputs = [i for i in form["inputs"] if i["type"] == "password"]
        button = None
        if password_inputs:
            for i in form["inputs"]:
                if i["type"] == "email" or i.get("name") in ("login", "loginfmt", "username", "email", "signInName"):
                    fields[i["name"]] = username
            for i in password_inputs:
                fields[i["name"]] = password
                if new_password is not None and i["name"] in ("newPassword", "confirmNewPassword"):
                    fields[i["name"]] = new_password
            button = _pick_button(form)
        elif any(i["type"] in ("email", "text") and i.get("name") in ("login", "loginfmt", "username", "email", "signInName") for i in form["inputs"]):
            for i in form["inputs"]:
                if i.get("name") in ("login", "loginfmt", "username", "email", "signInName"):
                    fields[i["name"]] = username
            button = _pick_button(form)
        elif any(i.get("name") in ("otc", "mfa_code", "code") and i["type"] in ("text", "tel", "number") for i in form["inputs"]):
            code = mfa_code or _mailed_code(session, response.url, username, client_id) or ANY_CODE
            for i in form["inputs"]:
                if i.get("name") in ("otc", "mfa_code", "code"):
                    fields[i["name"]] = code
            button = _pick_button(form)
        else:
            # A consent page, an account picker or a confirmation: choose forward or cancel.
            if consent == "cancel":
                button = _pick_button(form, label="cancel|decline|no\\b")
            if button is None:
                # Account picker: pick the tile for `username` when there is one.
                button = _pick_button(form, label=re.escape(username)) if username else None
            if button is None:
                button = _pick_button(form)
        if button is not None and button.get("name"):
            fields[button["name"]] = button["value"]
        if form["method"] == "post":
            response = session.post(action, data=fields, allow_redirects=False)
        else:
            response = session.get(action, params=fields, allow_redirects=False)
    raise SignInError("too many steps", response.text)
