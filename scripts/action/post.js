// The action's post step, run when the job failed (action.yml's post-if): save the server's journal as a
// HAR, upload it with the server's log as an artifact, and stop the server the main step started.
"use strict";
const fs = require("fs");
const path = require("path");
const { get, input, state, zip } = require("./runner");
const { uploadArtifact } = require("./artifact");

async function post() {
  const pid = Number(state("pid"));
  if (!pid) {
    console.log("FakeEntra was not started; nothing to stop");
    return;
  }
  try {
    await saveJournal();
  } catch (error) {
    console.log(`::warning::the journal could not be saved: ${error.message}`);
  }
  stop(pid);
}

async function saveJournal() {
  const url = state("url"), ca = state("ca"), work = state("work");
  const answer = await get(`${url}/_fakeentra/journal?format=har`, ca, { Authorization: `Bearer ${state("secret")}` });
  if (answer.status !== 200) throw new Error(`GET /_fakeentra/journal answered ${answer.status}`);
  const har = path.join(work, "journal.har");
  fs.writeFileSync(har, answer.body);
  const files = { "journal.har": answer.body };
  const log = state("log");
  if (log && fs.existsSync(log)) files["serve.log"] = fs.readFileSync(log);
  console.log(`The journal of ${url} is in ${har} (${answer.body.length} bytes)`);
  if (process.env.ACTIONS_RUNTIME_TOKEN && process.env.ACTIONS_RESULTS_URL) {
    const name = input("artifact-name", "fakeentra-journal");
    const id = await uploadArtifact(name, zip(files));
    console.log(`Uploaded it as the artifact ${name} (id ${id})`);
  }
}

/** SIGTERM, then SIGKILL if the server is still there after 5 s. */
function stop(pid) {
  const alive = () => { try { process.kill(pid, 0); return true; } catch (_) { return false; } };
  try { process.kill(pid, "SIGTERM"); } catch (_) { return; }
  const deadline = Date.now() + 5000;
  while (alive() && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  if (alive()) process.kill(pid, "SIGKILL");
  console.log(`FakeEntra (pid ${pid}) stopped`);
}

post().catch((error) => { console.log(`::warning::${error.stack || error}`); });
