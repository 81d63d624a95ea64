/** The cloud-init the VM's NoCloud seed carries. */
import { z } from "zod";
import { CloudInitInputSchema } from "../seed/seed-inputs";
import { field } from "./field";

/** Cloud-init. */
export const CLOUD_INIT_FIELDS = {
  cloudInit: field({
    doc: "Cloud-init for the VM's NoCloud seed. A running VM reboots onto a changed seed.",
    docType: "CloudInitArgs",
    argType: "CloudInitArgs",
    schema: CloudInitInputSchema,
    mayBeUnknown: false,
    change: "reboot",
    // Secret-bearing, and checked again whenever the seed is built.
    stored: z.unknown().optional(),
    // The seed's name carries a hash of its content (the `seedVolid` output): a changed seed is seen there.
    readBack: { from: "input" },
    example: { valid: { hostname: "web" }, invalid: { hostname: "web_1" } },
  }),
} as const;
