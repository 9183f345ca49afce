"""Every recorded real response, provoked on FakeEntra and compared by structure. A recording passes when
every difference is on the documented list (differences.json), which the run prints with its reasons."""
import pytest

from fidelity import KnownDifferences, compare, load_recordings

RECORDINGS = load_recordings()
KNOWN = KnownDifferences()


def test_the_corpus_is_whole():
    """Each recording names its source (a repository path at a commit, or a page), says what made the
    service answer so, and holds an answer; the corpus covers every area."""
    assert len(RECORDINGS) >= 80, f"only {len(RECORDINGS)} recordings"
    for recording in RECORDINGS:
        source = recording.data.get("source") or {}
        assert source.get("url") or (source.get("repo") and source.get("path") and len(source.get("commit", "")) == 40), recording.name
        assert recording.data.get("situation") and recording.area, recording.name
        assert recording.claims is not None or {"body", "bodyText", "headers", "status"} & recording.response.keys(), recording.name
    areas = {recording.area for recording in RECORDINGS}
    assert {"metadata", "discovery", "jwks", "token", "devicecode", "error", "claims", "graph", "b2c", "arm", "managed-identity",
            "extension"} <= areas
    assert sum(recording.area == "error" for recording in RECORDINGS) >= 20


def test_a_difference_is_seen():
    """The comparison is not blind: a missing key, a changed error string and a string number are found."""
    from fidelity import Answer, Recording
    recording = RECORDINGS[0].__class__.__new__(Recording)
    recording.claims, recording.response = None, {"status": 400, "body": {"error": "interaction_required", "expires_in": "3599", "suberror": "bad_token"}}
    found = compare(recording, Answer(400, {}, {"error": "invalid_grant", "expires_in": 3599}))
    assert sorted(found) == sorted(['value body.error: recorded "interaction_required", FakeEntra "invalid_grant"',
                                    "type body.expires_in: recorded string, FakeEntra number", "missing body.suberror"])


@pytest.mark.parametrize("recording", RECORDINGS, ids=[r.name for r in RECORDINGS])
def test_recording(recording, provoker, capsys, fakeentra_factory, fakeentra_extension_endpoint):
    if recording.area == "extension":
        answer = provoker.extension(recording, fakeentra_factory, fakeentra_extension_endpoint)
    else:
        answer = provoker.provoke(recording)
    differences = compare(recording, answer)
    unexplained, explained = KNOWN.split(recording, differences)
    with capsys.disabled():
        for difference, reason in explained:
            kind = "gap" if reason.startswith("not modelled yet: ") else "kept on purpose"
            print(f"\n  {kind}: {recording.name}: {difference} ({reason})", end="")
    assert not unexplained, f"{recording.title}\n  " + "\n  ".join(unexplained)
