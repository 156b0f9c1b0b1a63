// A generated answer from an OpenAI-compatible endpoint the operator configured (ASK_MODEL_URL):
// POST {url}/chat/completions with `stream: true`, the retrieved passages in the prompt, its text
// read as it streams. Bounded: a deadline for the whole answer, a cap on its size, a cap on the
// calls under way in this instance; no redirect is followed and only http(s) is called.
import type { AskModel } from "../../config.ts";

/** Characters of a generated answer kept; the rest is cut. */
export const ASK_ANSWER_MAX_CHARACTERS = 4000;
/** Tokens the model is asked to write at most (about the characters above). */
const MAX_TOKENS = 1024;

/** Why a model's answer failed: logged, never shown to the asker beyond a short note. */
export class ModelError extends Error {}

/** The model and the calls to it under way (one per app, in Services). */
export class AskModelGate {
  private active = 0;
  constructor(readonly model: AskModel | undefined) {}

  /** A slot for one call, or null when none is configured or every slot is taken. */
  take(): { model: AskModel; release(): void } | null {
    const { model } = this;
    if (!model || this.active >= model.concurrency) return null;
    this.active++;
    let released = false;
    return {
      model,
      release: () => {
        if (!released) this.active--;
        released = true;
      },
    };
  }
}

const INSTRUCTIONS =
  "You answer questions about documentation. Use only the numbered passages given; cite them as [1], [2]. " +
  "If they do not answer the question, say so briefly. Answer in Markdown, concisely.";

/** What the model is given: the question and the retrieved passages (src/core/ask/index.ts AskRun). */
export interface ModelQuestion {
  question: string;
  passages: { title: string; url: string; text: string }[];
}

function promptOf(question: string, passages: ModelQuestion["passages"]): string {
  const quoted = passages.map((passage, index) => `[${index + 1}] ${passage.title} (${passage.url})\n${passage.text}`).join("\n\n");
  return `Passages:\n\n${quoted}\n\nQuestion: ${question}`;
}

/**
 * The model's answer to `run`, as it is written: each value is the text so far (at most
 * ASK_ANSWER_MAX_CHARACTERS). Throws ModelError when the endpoint fails, answers other than 200,
 * or the deadline (or `signal`) stops it.
 */
export async function* modelText(model: AskModel, run: ModelQuestion, signal: AbortSignal): AsyncGenerator<string> {
  const url = new URL(`${model.url.replace(/\/+$/, "")}/chat/completions`);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ModelError(`the model URL is not http(s): ${url.protocol}`);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(model.key ? { Authorization: `Bearer ${model.key}` } : {}) },
      body: JSON.stringify({
        model: model.name,
        stream: true,
        max_tokens: MAX_TOKENS,
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: promptOf(run.question, run.passages) },
        ],
      }),
      // The operator's URL, yet a redirect could lead anywhere: it is an error.
      redirect: "manual",
      signal,
    });
  } catch (error) {
    throw new ModelError(`the model could not be reached: ${(error as Error).message}`);
  }
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new ModelError(`the model answered ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let text = "";
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new ModelError(`the model's answer stopped: ${(error as Error).message}`);
      }
      if (chunk.done) return;
      buffered += chunk.value;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      // A line longer than the whole answer may be is no answer.
      if (buffered.length > ASK_ANSWER_MAX_CHARACTERS * 4) throw new ModelError("the model sent a line too long");
      let grown = false;
      for (const line of lines) {
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") {
          if (grown) yield text;
          return;
        }
        let delta: unknown;
        try {
          delta = (JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta?.content;
        } catch {
          throw new ModelError("the model sent an event that is not JSON");
        }
        if (typeof delta !== "string" || !delta) continue;
        text += delta;
        grown = true;
        if (text.length >= ASK_ANSWER_MAX_CHARACTERS) {
          yield `${text.slice(0, ASK_ANSWER_MAX_CHARACTERS)}…`;
          return;
        }
      }
      if (grown) yield text;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
