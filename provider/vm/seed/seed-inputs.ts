/**
 * The cloud-init inputs (`cloudInit` on the VM), parsed with zod. Every message names the
 * field; `validateCloudInit` turns issues into `check` failures with paths such as
 * `cloudInit.users[0].name`. User-supplied `#cloud-config` text is checked as YAML here, so a
 * broken document fails before any API call.
 */
import { z } from "zod";
import type { CheckFailure } from "../../inputs/check-failure";
import { seedNicSchema } from "../spec/network";
import { checkYaml } from "./yaml.js";

/** user-data, network-config and vendor-data each stay under this many UTF-8 bytes. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

const dnsLabel = z
  .string()
  .regex(
    /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/,
    "must be a DNS label: 1 to 63 of A-Z a-z 0-9 and -, not starting or ending with -",
  );
const posixName = z
  .string()
  .regex(
    /^[a-z_][a-z0-9_-]{0,31}$/,
    "must be a POSIX name: a-z _ first, then a-z 0-9 _ -, up to 32",
  );
const sshKey = z
  .string()
  .regex(
    /^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp(?:256|384|521)|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+=*(?: [^\n\r]*)?$/,
    "must be one OpenSSH public key line (type, base64 key, optional comment)",
  );
const absolutePath = z.string().regex(/^\/[^\0\n]*$/, "must be an absolute path without newlines");

const user = z.strictObject({
  name: posixName,
  sshAuthorizedKeys: z.array(sshKey).optional(),
  /** `true` is passwordless sudo for everything; a string is a sudoers rule, as written. */
  sudo: z.union([z.boolean(), z.string().regex(/^[^\n]+$/, "must be one sudoers line")]).optional(),
  groups: z.array(posixName).optional(),
  shell: absolutePath.optional(),
  lockPassword: z.boolean().optional(),
  hashedPassword: z
    .string()
    .regex(
      /^\$(?:1|5|6|y|2[aby])\$[^\s:]+$/,
      "must be a crypt(3) hash such as $6$… (not a plain password)",
    )
    .optional(),
});

const writeFile = z.strictObject({
  path: absolutePath,
  content: z.string(),
  permissions: z
    .string()
    .regex(/^0?[0-7]{3,4}$/, 'must be an octal mode string such as "0644"')
    .optional(),
  owner: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]*(?::[a-z_][a-z0-9_-]*)?$/, "must be user or user:group")
    .optional(),
});

const userData = z.string().superRefine((text, ctx) => {
  if (Buffer.byteLength(text, "utf8") > MAX_DOCUMENT_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_DOCUMENT_BYTES} bytes` });
    return;
  }
  if (!/^#cloud-config[ \t]*(?:\r?\n|$)/.test(text)) return; // a script, MIME, include…: not ours to parse
  const result = checkYaml(text);
  if (!result.ok) {
    ctx.addIssue({
      code: "custom",
      message: `is not valid YAML: line ${result.line}: ${result.message}`,
    });
  } else if (result.root === "other") {
    ctx.addIssue({
      code: "custom",
      message: "must be a YAML mapping after #cloud-config (key: value lines)",
    });
  }
});

const TYPED_USER_DATA = ["users", "sshAuthorizedKeys", "packages", "runcmd", "writeFiles"] as const;

/** What the user writes under `cloudInit`: everything but the network, which is derived. */
const userFields = {
  hostname: dnsLabel.optional(),
  users: z.array(user).optional(),
  sshAuthorizedKeys: z.array(sshKey).optional(),
  packages: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9.+:~=_-]*$/, "must be a package name, optionally =version"),
    )
    .optional(),
  runcmd: z
    .array(z.union([z.string(), z.array(z.string()).min(1, "must not be an empty argv")]))
    .optional(),
  writeFiles: z.array(writeFile).optional(),
  userData: userData.optional(),
};

function userDataIsExclusive(
  value: { readonly userData?: string | undefined } & Record<string, unknown>,
  ctx: z.RefinementCtx,
): void {
  if (value.userData === undefined) return;
  for (const field of TYPED_USER_DATA) {
    if (value[field] !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: "cannot be combined with userData, which replaces the generated user-data",
      });
    }
  }
}

/**
 * The `cloudInit` input of a VM, as `check` parses it. The seed's network config is derived from
 * the VM's `network` input, matched to the NIC by its MAC; a `cloudInit.network` is refused with
 * that advice rather than accepted and then silently replaced.
 */
export const CloudInitInputSchema = z
  .strictObject({
    ...userFields,
    network: z
      .never({
        error:
          "cannot be set: the seed's network config is derived from the VM's `network` input " +
          "(ipv4, ipv6, nameservers, searchDomains); set those instead",
      })
      .optional(),
  })
  .superRefine(userDataIsExclusive);

/** The whole seed configuration: the user's cloud-init plus the derived NICs. */
const CloudInitSchema = z
  .strictObject({ ...userFields, network: z.array(seedNicSchema).optional() })
  .superRefine((value, ctx) => {
    if (value.network !== undefined && value.network.length > 1) {
      value.network.forEach((n, i) => {
        if (n.mac === undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["network", i, "mac"],
            message: "is required when there is more than one NIC",
          });
        }
      });
    }
    userDataIsExclusive(value, ctx);
  });

export type CloudInit = z.infer<typeof CloudInitSchema>;
export type CloudInitInput = z.infer<typeof CloudInitInputSchema>;
export type CloudInitUser = z.infer<typeof user>;
export type { SeedNic as CloudInitNic } from "../spec/network";

export type CloudInitValidation =
  | { readonly ok: true; readonly value: CloudInit }
  | { readonly ok: false; readonly failures: readonly CheckFailure[] };

/** Parses `input`; failures name the property as `cloudInit.users[0].name`. Never throws. */
export function validateCloudInit(input: unknown, root = "cloudInit"): CloudInitValidation {
  const parsed = CloudInitSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const failures: CheckFailure[] = [];
  for (const issue of parsed.error.issues) {
    const base = propertyPath(root, issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        failures.push({ property: `${base}.${key}`, reason: "is not a known field" });
    } else {
      failures.push({ property: base, reason: issue.message });
    }
  }
  return { ok: false, failures };
}

function propertyPath(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${String(key)}`),
    root,
  );
}
