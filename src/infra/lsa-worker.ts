// The thread of an LSA training (src/infra/lsa-trainer.ts): gathers the sections sent in chunks
// (the text of their tsvectors, taken apart here), then trains and answers with the model, its
// arrays transferred (not copied) to the caller.
//
// Messages in: { type: "add", vectors } (any number), then { type: "train", options }
// → { model } (null: too little content) or { error }.
import { parentPort } from "node:worker_threads";
import { trainLsa, type LsaOptions, type TermCounts } from "../core/ask/lsa.ts";
import { termCountsOf } from "../core/ask/tsvector.ts";

type Message = { type: "add"; vectors: string[] } | { type: "train"; options: LsaOptions };

/** The thread's one task at a time: the sections gathered so far, trained on at "train". */
function trainings(): (message: Message) => void {
  let sections: TermCounts[] = [];
  return (message) => {
    if (message.type === "add") {
      for (const vector of message.vectors) sections.push(termCountsOf(vector));
      return;
    }
    const gathered = sections;
    sections = [];
    try {
      const model = trainLsa(gathered, message.options);
      const transfer = model ? [model.idf.buffer, model.projection.buffer, model.vectors.buffer] : [];
      parentPort!.postMessage({ model }, transfer as ArrayBuffer[]);
    } catch (error) {
      parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  };
}

parentPort!.on("message", trainings());
