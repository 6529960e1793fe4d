/**
 * The interactive `experiment create` flow (create.prompts.ts, create-roles.prompts.ts) driven
 * with scripted answers through its Prompts interface: every question is recorded with its
 * default and choices, inputs go through the question's own validator (a refused answer is
 * recorded and the next scripted one typed), an unscripted question takes its default (Enter).
 */
import { describe, expect, it } from 'vitest';
import { promptExperiment } from '../../../commands/experiment/create.prompts.js';
import type { PromptChoice, Prompts } from '../../../commands/experiment/create-roles.prompts.js';
import type { CreateOptions } from '../../../commands/experiment/create.options.js';
import { CliError } from '../../../commands/support/cli-error.js';

type Answer = string | string[] | boolean;
interface Question {
  kind: 'input' | 'select' | 'checkbox' | 'confirm';
  message: string;
  default?: unknown;
  choices?: PromptChoice<string>[];
}

/** Prompts answering from `script` (message pattern → answers, used in turn), recording questions and refusals. */
function scripted(given: [RegExp, Answer[]][]) {
  const script = given.map(([pattern, answers]): [RegExp, Answer[]] => [pattern, [...answers]]);
  const questions: Question[] = [];
  const refused: { message: string; answer: string; why: string }[] = [];
  const next = (message: string): Answer | undefined => {
    const entry = script.find(([pattern, answers]) => pattern.test(message) && answers.length > 0);
    return entry?.[1].shift();
  };
  const prompts: Prompts = {
    async input(config) {
      questions.push({ kind: 'input', message: config.message, default: config.default });
      for (;;) {
        const answer = next(config.message);
        const value = answer === undefined ? (config.default ?? '') : String(answer);
        const verdict = config.validate?.(value) ?? true;
        if (verdict === true) return value;
        refused.push({ message: config.message, answer: value, why: verdict });
        if (answer === undefined) throw new Error(`no valid answer scripted for "${config.message}"`);
      }
    },
    async select<T extends string>(config: { message: string; choices: PromptChoice<T>[]; default?: T }) {
      questions.push({ kind: 'select', message: config.message, default: config.default, choices: config.choices });
      const answer = next(config.message);
      const value = (answer === undefined ? (config.default ?? config.choices[0]?.value) : answer) as T;
      if (!config.choices.some((c) => c.value === value)) throw new Error(`"${String(value)}" is not a choice of "${config.message}"`);
      return value;
    },
    async checkbox<T extends string>(config: { message: string; choices: PromptChoice<T>[] }) {
      questions.push({ kind: 'checkbox', message: config.message, choices: config.choices });
      const answer = next(config.message);
      const values = (answer === undefined ? config.choices.filter((c) => c.checked === true).map((c) => c.value) : answer) as T[];
      for (const value of values)
        if (!config.choices.some((c) => c.value === value)) throw new Error(`"${value}" is not a choice of "${config.message}"`);
      return values;
    },
    async confirm(config) {
      questions.push({ kind: 'confirm', message: config.message, default: config.default });
      const answer = next(config.message);
      return answer === undefined ? (config.default ?? false) : answer === true;
    },
  };
  return { prompts, questions, refused };
}

/** Name, two variants 50/50 with default weights, control first. */
const BASICS: [RegExp, Answer[]][] = [
  [/^Experiment name/, ['fresh posts']],
  [/^Variant \d name/, ['control', 'fresh']],
  [/^Traffic allocation of control/, ['50']],
  [/^Which variant is the control/, ['control']],
];

const question = (questions: Question[], pattern: RegExp): Question => {
  const found = questions.find((q) => pattern.test(q.message));
  if (!found) throw new Error(`no question matching ${pattern}`);
  return found;
};

describe('interactive experiment create: primary metric, guardrails, gate rule and method', () => {
  it('asks for them and puts the answers in the body, offering as guardrails every metric but the chosen primary', async () => {
    const { prompts, questions } = scripted([
      ...BASICS,
      [/^Primary metric/, ['user_satisfaction']],
      [/^Guardrail metrics/, [['bounce_rate', 'session_duration']]],
      [/^Gate rule/, ['point']],
      [/^Analysis method/, ['fixed']],
    ]);
    const body = await promptExperiment({}, prompts);
    expect(body).toMatchObject({
      name: 'fresh posts',
      primary_metric: 'user_satisfaction',
      guardrail_metrics: ['bounce_rate', 'session_duration'],
      gate_rule: 'point',
      analysis_method: 'fixed',
    });
    expect(body.variants.map((v) => [v.name, v.traffic_allocation, v.is_control])).toEqual([
      ['control', 50, true],
      ['fresh', 50, false],
    ]);
    const guardrails = question(questions, /^Guardrail metrics/);
    expect(guardrails.kind).toBe('checkbox');
    expect(guardrails.choices?.map((c) => c.value)).not.toContain('user_satisfaction');
    expect(guardrails.choices?.map((c) => c.value)).toHaveLength(5);
    // The server's defaults are pre-checked: bounce_rate (user_satisfaction is the primary here).
    expect(guardrails.choices?.filter((c) => c.checked).map((c) => c.value)).toEqual(['bounce_rate']);
    expect(question(questions, /Create "fresh posts"/).message).toContain(
      'decided by: primary user_satisfaction, guardrails bounce_rate, session_duration, gate rule point, fixed analysis',
    );
  });

  it("offers the server's defaults when nothing is given: click_through_rate, bounce_rate and user_satisfaction, bounds, sequential", async () => {
    const { prompts, questions } = scripted(BASICS);
    const body = await promptExperiment({}, prompts);
    expect(question(questions, /^Primary metric/).default).toBe('click_through_rate');
    expect(body).toMatchObject({
      primary_metric: 'click_through_rate',
      guardrail_metrics: ['bounce_rate', 'user_satisfaction'],
      gate_rule: 'bounds',
      analysis_method: 'sequential',
    });
  });

  it('makes the flags the defaults, aliases resolved (--primary-metric ctr, --guardrail a,b, --gate-rule, --method)', async () => {
    const options: CreateOptions = {
      primaryMetric: 'satisfaction',
      guardrail: ['interaction_rate,bounce_rate'],
      gateRule: 'point',
      method: 'fixed',
    };
    const { prompts, questions } = scripted(BASICS);
    const body = await promptExperiment(options, prompts);
    expect(question(questions, /^Primary metric/).default).toBe('user_satisfaction');
    expect(question(questions, /^Gate rule/).default).toBe('point');
    expect(question(questions, /^Analysis method/).default).toBe('fixed');
    expect(body).toMatchObject({
      primary_metric: 'user_satisfaction',
      guardrail_metrics: ['interaction_rate', 'bounce_rate'],
      gate_rule: 'point',
      analysis_method: 'fixed',
    });
  });

  it('takes --guardrail none as no guardrail checked, and --metric as the primary default', async () => {
    const { prompts } = scripted(BASICS);
    const body = await promptExperiment({ guardrail: ['none'], metric: 'bounce_rate' }, prompts);
    expect(body).toMatchObject({ primary_metric: 'bounce_rate', guardrail_metrics: [] });
  });

  it('refuses an unknown metric flag before asking anything, as without prompts (exit 2)', async () => {
    const { prompts, questions } = scripted(BASICS);
    const error = await promptExperiment({ guardrail: ['p95'] }, prompts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toContain('--guardrail: unknown metric "p95"');
    expect(questions).toEqual([]);
  });

  it('checks typed answers with the server’s rules and cancels when the summary is declined', async () => {
    const { prompts, refused } = scripted([...BASICS, [/^Traffic percentage/, ['150', '40']], [/Create "/, [false]]]);
    const error = await promptExperiment({}, prompts).catch((e: unknown) => e);
    expect(refused.map((r) => r.answer)).toEqual(['150']);
    expect(refused[0]?.why).toMatch(/traffic/i);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toContain('cancelled');
  });

  it('names the text typed when a number prompt is given letters, never "NaN"', async () => {
    const { prompts, refused } = scripted([
      [/^Traffic percentage/, ['abc', '40']],
      [/^Minimum sample size/, ['lots', '500']],
      [/^Traffic allocation of control/, ['half', '50']],
      [/^control: weight recency/, ['x', '0.25']],
      ...BASICS,
    ]);
    await promptExperiment({}, prompts);
    expect(refused.map((r) => r.answer)).toEqual(['abc', 'lots', 'half', 'x']);
    for (const r of refused) {
      expect(r.why).toContain(`(got "${r.answer}")`);
      expect(r.why).not.toContain('NaN');
    }
  });

  it('never offers a negative last weight when the first three already add up to more than 1', async () => {
    const { prompts, questions, refused } = scripted([
      ...BASICS,
      [/^control: weight author_preference/, ['0.6', '0.35']],
      [/^control: weight content_engagement/, ['0.5', '0.25']],
      [/^control: weight recency/, ['0.3', '0.25']],
    ]);
    await promptExperiment({}, prompts);
    const lastDefaults = questions.filter((q) => /: weight semantic_similarity/.test(q.message)).map((q) => Number(q.default));
    // First round (0.6 + 0.5 + 0.3 = 1.4) offers 0, not -0.4; the re-asked round offers what is left: 0.15.
    expect(lastDefaults.slice(0, 2)).toEqual([0, 0.15]);
    for (const value of lastDefaults) expect(value).toBeGreaterThanOrEqual(0);
    expect(refused).toEqual([]);
  });
});
