/**
 * diff: a template is an image, so every input change makes another one, created before the old
 * one is deleted (the VMs cloned from the old one keep running; linked clones hold it until they
 * are gone). Timeouts are settings and change nothing.
 */
import { isUnknown } from "../inputs/unknown";
import { TEMPLATE_INPUT_KEYS } from "./template-inputs";

export function diffTemplate(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): { changes: boolean; replaces: string[] } {
  const replaces = TEMPLATE_INPUT_KEYS.filter(
    (key) => isUnknown(news[key]) || JSON.stringify(olds[key]) !== JSON.stringify(news[key]),
  );
  const settings = JSON.stringify(olds["timeouts"]) !== JSON.stringify(news["timeouts"]);
  return { changes: replaces.length > 0 || settings, replaces: [...replaces] };
}
