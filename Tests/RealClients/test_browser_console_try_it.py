"""The console's "Try it" in headless Chromium with JavaScript off: from the overview's button through the
real sign-in and consent pages to the page with the decoded tokens and the Graph profile, and what it
left in the journal."""
from chromium import chromium, chromium_session, on_page, server  # noqa: F401 (fixtures)

ADELE = "adele.vance@contoso.onmicrosoft.com"
MEGAN = "megan@outlook.com"
PASSWORD = "Passw0rd!"


def test_try_it_signs_in_and_shows_the_tokens_and_graph(server, chromium):
    chromium.open(server.url + "/")
    on_page(chromium, "authorities-v2", reload=False)
    chromium.driver.find_element("css selector", "a[data-try='/contoso.onmicrosoft.com']").click()
    on_page(chromium, "i0116", reload=False)
    chromium.fill({"i0116": ADELE, "i0118": PASSWORD}, submit="idSIButton9")
    on_page(chromium, "consent", reload=False)
    chromium.click("idBtn_Accept")
    on_page(chromium, "trySignedIn", reload=False, shot="console-try-it")
    signed_in = chromium.find("trySignedIn").text
    assert ADELE in signed_in and "answered GET /v1.0/me with 200" in signed_in, signed_in
    assert '"userPrincipalName": "adele.vance@contoso.onmicrosoft.com"' in chromium.find("tryGraphBody").text
    tokens = chromium.find("tryTokens").text
    assert "id_token" in tokens and "access_token" in tokens and "User.Read" in tokens, tokens
    # Both requests the page made are the journal's, as any client's; the app is in the directory.
    journal = server.journal(path="/contoso.onmicrosoft.com/oauth2/v2.0/token")
    redeemed = [entry for entry in journal["entries"] if entry["status"] == 200]
    assert redeemed, journal
    # The console decodes the tokens of that entry (they passed its ledger), signature checked.
    chromium.open(f"{server.url}/_fakeentra/console/journal/{redeemed[0]['id']}")
    assert chromium.driver.find_elements("css selector", "section[data-token='access_token'] [data-signature='valid']")
    chromium.back()
    assert any(entry["status"] == 200 for entry in server.journal(path="/v1.0/me")["entries"])
    # The redirect is single-use: the same callback again is refused in words, not with an exception.
    chromium.reload()
    assert chromium.has("tryError")


def test_try_it_with_personal_accounts_and_a_cancelled_sign_in(server, chromium):
    chromium.open(server.url + "/")
    chromium.driver.find_element("css selector", "a[data-try='/consumers']").click()
    on_page(chromium, "i0116", reload=False)
    chromium.fill({"i0116": MEGAN, "i0118": PASSWORD}, submit="idSIButton9")
    on_page(chromium, "consent", reload=False)
    chromium.click("idBtn_Back")
    on_page(chromium, "tryError", reload=False)
    assert "access_denied" in chromium.find("tryError").text


def test_try_it_with_a_b2c_user_flow(server, chromium):
    chromium.open(server.url + "/")
    chromium.driver.find_element("css selector", "a[data-try='/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi']").click()
    on_page(chromium, "localAccountForm", reload=False)
    chromium.fill({"email": "ben@fabrikam.test", "password": PASSWORD}, submit="next")
    on_page(chromium, "trySignedIn", reload=False)
    signed_in = chromium.find("trySignedIn").text
    assert "B2C_1_susi" in signed_in and "helloapi/demo.read" in signed_in, signed_in
    tokens = chromium.find("tryTokens").text
    assert "B2C_1_susi" in tokens and "demo.read" in tokens, tokens   # tfp and scp, decoded
    assert not chromium.has("tryGraph"), "a B2C token is for the tenant's API, not Graph"
    # Flows a person does not start from a sign-in button have no button.
    chromium.open(server.url + "/")
    assert not chromium.driver.find_elements("css selector", "a[data-try*='B2C_1_ropc']")


def test_try_it_with_an_external_id_tenant(server, chromium):
    """The overview lists External ID's tenant with the ciamlogin.com name its apps use, and "Try it" signs a
    customer in with their email through the tenant's own pages."""
    chromium.open(server.url + "/")
    on_page(chromium, "authorities-external", reload=False)
    assert "https://woodgrove.ciamlogin.com/" in chromium.find("authorities-external").text
    chromium.driver.find_element("css selector", "a[data-try='/woodgrove.onmicrosoft.com']").click()
    on_page(chromium, "i0116", reload=False)
    assert "Email address" in chromium.driver.find_element("css selector", "label[for='i0116']").text
    chromium.fill({"i0116": "jordan@woodgrove.example", "i0118": PASSWORD}, submit="idSIButton9")
    if chromium.has("consent"):
        chromium.click("idBtn_Accept")
    on_page(chromium, "trySignedIn", reload=False, shot="console-try-it-external-id")
    signed_in = chromium.find("trySignedIn").text
    assert "jordan@woodgrove.example" in signed_in, signed_in
