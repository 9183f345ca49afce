// Uploads an artifact the way actions/toolkit's @actions/artifact does (v2 of the artifact service): the
// backend ids from ACTIONS_RUNTIME_TOKEN's Actions.Results scope, CreateArtifact and FinalizeArtifact over
// Twirp JSON at ACTIONS_RESULTS_URL, the zip PUT to the signed blob URL in between
// (packages/artifact/src/internal/upload/upload-artifact.ts, shared/util.ts, shared/artifact-twirp-client.ts).
"use strict";
const crypto = require("crypto");
const http = require("http");
const https = require("https");

function backendIds() {
  const token = process.env.ACTIONS_RUNTIME_TOKEN;
  const payload = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
  for (const scope of String(payload.scp || "").split(" ")) {
    const parts = scope.split(":");
    if (parts[0] === "Actions.Results" && parts.length === 3) {
      return { workflow_run_backend_id: parts[1], workflow_job_run_backend_id: parts[2] };
    }
  }
  throw new Error("ACTIONS_RUNTIME_TOKEN has no Actions.Results scope");
}

function send(method, url, body, headers) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === "https:" ? https : http).request(target, { method, headers: { ...headers, "Content-Length": body.length } }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        if (response.statusCode >= 300) reject(new Error(`${method} ${target.pathname}: HTTP ${response.statusCode} ${text.slice(0, 300)}`));
        else resolve(text);
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}

async function twirp(method, message) {
  const url = new URL(`/twirp/github.actions.results.api.v1.ArtifactService/${method}`, process.env.ACTIONS_RESULTS_URL).href;
  const answer = JSON.parse(await send("POST", url, Buffer.from(JSON.stringify(message)), {
    Authorization: `Bearer ${process.env.ACTIONS_RUNTIME_TOKEN}`, "Content-Type": "application/json", "User-Agent": "fakeentra-action",
  }));
  if (!answer.ok) throw new Error(`${method}: the artifact service did not answer ok`);
  return answer;
}

/** Uploads `zipBytes` as the artifact `name`; its id. */
async function uploadArtifact(name, zipBytes) {
  const ids = backendIds();
  const created = await twirp("CreateArtifact", { ...ids, name, mime_type: "application/zip", version: 7 });
  await send("PUT", created.signed_upload_url || created.signedUploadUrl, zipBytes, {
    "x-ms-blob-type": "BlockBlob", "Content-Type": "application/zip",
  });
  const finalized = await twirp("FinalizeArtifact", {
    ...ids, name, size: String(zipBytes.length), hash: `sha256:${crypto.createHash("sha256").update(zipBytes).digest("hex")}`,
  });
  return finalized.artifact_id || finalized.artifactId;
}

module.exports = { uploadArtifact };
