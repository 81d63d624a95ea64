/**
 * The provider process's side of the `CloudImageTemplate` glue: Pulumi's dynamic-provider calls
 * mapped to the template operations, on the process's one context (glue/runtime.ts), so templates
 * and VMs share the connection pool, the listing and the configuration.
 *
 * @internal
 */
import { forEngine } from "../inputs/check-failure";
import { context, providerOf, wire } from "../glue/runtime";
import { createTemplate } from "./create";
import { deleteTemplate } from "./delete";
import { diffTemplate } from "./diff";
import { checkTemplate, type TemplateInputs } from "./template-inputs";
import { readTemplate } from "./read";
import { parseTemplateState } from "./state";

type Props = Record<string, unknown>;

/**
 * The engine stores the inputs as the program wrote them (see runtime.ts `check`); diff and
 * create resolve them with their defaults.
 */
export async function check(_olds: Props, news: Props) {
  const result = checkTemplate(news);
  return result.failures.length > 0
    ? { ...result, failures: forEngine(result.failures) }
    : { inputs: { ...news }, failures: [] };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return { ...diffTemplate(olds, checkTemplate(news).inputs), deleteBeforeReplace: false };
}

export async function create(inputs: Props) {
  const ctx = await context();
  const state = await createTemplate(ctx, checkTemplate(inputs).inputs as TemplateInputs);
  return { id: String(state.vmid), outs: wire({ ...providerOf(inputs), ...state }) };
}

export async function read(id: string, props: Props) {
  const ctx = await context();
  const state = await readTemplate(ctx, parseTemplateState(props));
  if (state === undefined) return { id: "", props: {} };
  return { id, props: wire({ ...providerOf(props), ...state }) };
}

export async function remove(_id: string, props: Props): Promise<void> {
  const ctx = await context();
  await deleteTemplate(ctx, parseTemplateState(props));
}
