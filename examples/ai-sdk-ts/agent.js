// @ts-check
/**
 * ai-sdk-ts: a library-desk agent on the Vercel AI SDK (`ai`'s generateText
 * and streamText with a tool made by `tool()` and a zod schema), on the SDK's
 * Anthropic or Google provider, written to be put under test with testbed
 * (see README.md beside this file).
 *
 * It speaks testbed's JSON-lines contract (docs/external-agents.md): one line
 * per user turn on stdin, one reply line per turn on stdout. Each turn is one
 * call of the SDK's multi-step loop: the SDK runs the tool the model asks for
 * and hands the result back until the model answers, at most MAX_STEPS calls.
 * The SDK checks every answer against its own schema of the provider's API,
 * so a stand-in that answers in a shape the API does not have fails here.
 *
 * Everything it reaches comes from its environment:
 *   TESTBED_PROVIDER                 anthropic or gemini: which provider to use
 *   ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY   the Anthropic endpoint (without /v1)
 *   GEMINI_BASE_URL, GEMINI_API_KEY  the Gemini endpoint (without /v1beta)
 *   TESTBED_MODEL                    the model name
 *   TESTBED_STREAM                   "true": stream the model's answers (streamText)
 *   LIBRARY_URL                      the catalogue's search API (Open Library's shape)
 *   TESTBED_NOW                      "now" for the prompt (default: the clock)
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { createInterface } from "node:readline";
import { z } from "zod";

const SYSTEM_PROMPT = [
  "You are a library desk assistant.",
  "Use search_books to find a book's author and the year it was first published.",
  "Quote what the catalogue returns. If the catalogue fails or finds nothing, say so plainly.",
].join(" ");

/** The most model calls of one turn: a model that keeps calling tools is stopped. */
const MAX_STEPS = 4;

const env = (name, fallback) => (process.env[name] || fallback).replace(/\/$/, "");
const libraryURL = env("LIBRARY_URL", "https://openlibrary.org");

const searchBooks = tool({
  description: "Searches the library catalogue by title or author and returns the matching books with their authors and first publication year.",
  inputSchema: z.object({ query: z.string().describe("A book title or an author's name") }),
  execute: async ({ query }) => {
    const q = new URLSearchParams({ q: query, fields: "title,author_name,first_publish_year", limit: "3" });
    try {
      const res = await fetch(`${libraryURL}/search.json?${q}`);
      const body = await res.text();
      if (!res.ok) {
        return { error: `the catalogue answered ${res.status}: ${body.slice(0, 200)}` };
      }
      return JSON.parse(body);
    } catch (err) {
      return { error: `the catalogue could not be reached: ${err instanceof Error ? err.message : err}` };
    }
  },
});

/** The language model the environment names, on the AI SDK's provider for it. */
function languageModel() {
  const provider = process.env.TESTBED_PROVIDER || "anthropic";
  if (provider === "gemini") {
    const google = createGoogleGenerativeAI({ baseURL: `${env("GEMINI_BASE_URL", "https://generativelanguage.googleapis.com")}/v1beta`, apiKey: process.env.GEMINI_API_KEY });
    return google(process.env.TESTBED_MODEL || "gemini-2.5-flash");
  }
  const anthropic = createAnthropic({ baseURL: `${env("ANTHROPIC_BASE_URL", "https://api.anthropic.com")}/v1`, apiKey: process.env.ANTHROPIC_API_KEY });
  return anthropic(process.env.TESTBED_MODEL || "claude-haiku-4-5");
}

/**
 * Answers one user message with the SDK's multi-step loop, streamed or not.
 * @param {{now: string, streaming: boolean}} cfg
 * @param {string} input
 */
async function answer(cfg, input) {
  const request = {
    model: languageModel(),
    system: `${SYSTEM_PROMPT} Today is ${cfg.now.slice(0, 10)}.`,
    prompt: input,
    tools: { search_books: searchBooks },
    stopWhen: stepCountIs(MAX_STEPS),
    maxRetries: 0,
    temperature: 0,
  };
  if (!cfg.streaming) {
    const r = await generateText(request);
    return { text: r.text, called: r.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)) };
  }
  const r = streamText(request);
  let text = "";
  for await (const part of r.textStream) text += part;
  const steps = await r.steps;
  return { text, called: steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)) };
}

async function main() {
  const cfg = { now: process.env.TESTBED_NOW || new Date().toISOString(), streaming: process.env.TESTBED_STREAM === "true" };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const turn = JSON.parse(line);
    let reply;
    try {
      const { text, called } = await answer(cfg, turn.input);
      const route = called.length > 0 ? { mode: "tool", tool: called[0] } : { mode: "answer" };
      reply = { text, notes: [{ key: "route", value: route }] };
    } catch (err) {
      process.stderr.write(`ai-sdk-ts: ${err instanceof Error ? err.stack : err}\n`);
      reply = { text: `error: ${err instanceof Error ? err.message : err}` };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}

await main();
