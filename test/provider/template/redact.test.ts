import { describe, expect, it } from "vitest";
import { PermanentError } from "../../../provider/pve/errors";
import { redactedError, redactUrls } from "../../../provider/template/redact";

describe("redactUrls", () => {
  it.each([
    [
      "https://bucket.s3.amazonaws.com/img.qcow2?X-Amz-Signature=abc&X-Amz-Expires=900",
      "https://bucket.s3.amazonaws.com/img.qcow2?…",
    ],
    [
      "command 'wget -O /tmp/x http://10.0.0.1/a.raw?token=s3cr3t' failed",
      "command 'wget -O /tmp/x http://10.0.0.1/a.raw?…' failed",
    ],
    ["https://example.org/a.qcow2", "https://example.org/a.qcow2"],
    ["no url here?", "no url here?"],
  ])("shows %s as %s", (text, shown) => {
    expect(redactUrls(text)).toBe(shown);
  });
});

describe("redactedError", () => {
  it("redacts the message, PVE's message, parameter errors and the task log, keeping the code", () => {
    const url = "http://127.0.0.1/i.qcow2?sig=s3cr3t";
    const error = redactedError(
      new PermanentError("TASK_FAILED", `download of ${url} failed`, {
        node: "pve1",
        pveMessage: `wget ${url}`,
        paramErrors: { url: `bad ${url}` },
        taskLogTail: [`downloading ${url} to /var/lib/vz`],
      }),
    ) as PermanentError;
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.code).toBe("TASK_FAILED");
    expect(error.context.node).toBe("pve1");
    expect(JSON.stringify(error)).not.toContain("s3cr3t");
    expect(error.message).toBe("download of http://127.0.0.1/i.qcow2?… failed");
    expect(error.cause).toBeUndefined();
  });
});
