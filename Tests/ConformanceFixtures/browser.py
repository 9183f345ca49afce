#!/usr/bin/env python3
"""Test fixture only: a headless "browser" for `fakeentra conform --browser`, until `fakeentra browse`
(branch s3-clients) is merged. Walks FakeEntra's sign-in forms with FAKEENTRA_USERNAME/PASSWORD, ticks
every consent and delivers the final redirect to the app. Returns at once; works in the background."""
import os, sys, html.parser, urllib.parse

if os.fork():
    sys.exit(0)
os.environ["REQUESTS_CA_BUNDLE"] = os.environ["FAKEENTRA_CA"]
import requests

class Form(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.action = None; self.fields = []; self.submit = None; self.in_form = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = a.get("action", ""); self.in_form = True
        elif tag == "input" and self.in_form:
            kind, name = a.get("type", "text"), a.get("name")
            if not name: return
            if kind == "checkbox":
                self.fields.append((name, a.get("value", "on")))
            elif kind == "submit":
                self.submit = self.submit or (name, a.get("value", ""))
            elif kind == "password" or name in ("passwd",):
                self.fields.append((name, os.environ["FAKEENTRA_PASSWORD"]))
            elif name == "otc":
                self.fields.append((name, "123456"))
            elif name in ("login", "email", "signInName", "loginfmt", "username"):
                self.fields.append((name, os.environ["FAKEENTRA_USERNAME"]))
            else:
                self.fields.append((name, a.get("value", "")))
        elif tag == "button" and self.in_form and a.get("type", "submit") == "submit" and a.get("name") and self.submit is None \
                and "formnovalidate" not in a:
            self.submit = (a["name"], a.get("value", ""))
    def handle_endtag(self, tag):
        if tag == "form": self.in_form = False

session = requests.Session(); session.verify = os.environ["FAKEENTRA_CA"]
url, method, data = sys.argv[1], "GET", None
for _ in range(12):
    if url.startswith("http://localhost") or url.startswith("http://127.0.0.1"):
        requests.request(method, url, data=data, timeout=10); break
    response = session.request(method, url, data=data, allow_redirects=False, timeout=10)
    if response.is_redirect:
        url, method, data = urllib.parse.urljoin(url, response.headers["Location"]), "GET", None; continue
    form = Form(); form.feed(response.text)
    if form.action is None: break
    fields = form.fields + ([form.submit] if form.submit else [])
    url, method, data = urllib.parse.urljoin(url, form.action), "POST", fields
