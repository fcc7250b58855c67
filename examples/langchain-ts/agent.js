// @ts-check
/**
 * langchain-ts: a travel-desk agent on LangChain.js (`@langchain/openai`'s
 * ChatOpenAI with tools made by `@langchain/core`), written to be put under
 * test with testbed (see README.md beside this file).
 *
 * It speaks testbed's JSON-lines contract (docs/external-agents.md): one line
 * per user turn on stdin, one reply line per turn on stdout. Each turn runs
 * LangChain's tool-calling loop: the model is bound to two tools, the agent
 * runs the ones it asks for (each calls an HTTP API named by the environment)
 * and hands the results back as ToolMessages until the model answers.
 *
 * Everything it reaches comes from its environment:
 *   OPENAI_BASE_URL, OPENAI_API_KEY  the model endpoint (ChatOpenAI's configuration)
 *   TESTBED_MODEL                    the model name (default gpt-4.1-mini)
 *   TESTBED_STREAM                   "true": stream the model's answers (ChatOpenAI streaming)
 *   COUNTRIES_URL                    the countries API (REST Countries' shape)
 *   RATES_URL                        the exchange-rate API (Frankfurter's shape)
 *   TESTBED_NOW                      "now" for the prompt (default: the clock)
 */
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "@langchain/core/tools";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";
import { createInterface } from "node:readline";
import { z } from "zod";

const SYSTEM_PROMPT = [
  "You are a travel desk assistant.",
  "Use country_facts for a country's capital, population, languages and currency,",
  "and exchange_rate to convert an amount of money between two currencies.",
  "Quote the figures the tools return. If a tool fails, say so plainly.",
].join(" ");

/** The most model calls of one turn: a model that keeps calling tools is stopped. */
const MAX_ROUNDS = 4;

const env = (name, fallback) => (process.env[name] || fallback).replace(/\/$/, "");
const countriesURL = env("COUNTRIES_URL", "https://restcountries.com");
const ratesURL = env("RATES_URL", "https://api.frankfurter.dev");

/**
 * GETs url and returns its body for the model: the JSON as text, or a JSON
 * error the model can read.
 * @param {string} url
 */
async function fetchText(url) {
  try {
    const res = await fetch(url);
    const body = await res.text();
    if (!res.ok) {
      return JSON.stringify({ error: `the service answered ${res.status}: ${body.slice(0, 200)}` });
    }
    return body;
  } catch (err) {
    return JSON.stringify({ error: `the service could not be reached: ${err instanceof Error ? err.message : err}` });
  }
}

const countryFacts = tool(
  async ({ country }) => {
    const body = await fetchText(`${countriesURL}/v3.1/name/${encodeURIComponent(country)}?fields=name,capital,population,languages,currencies`);
    return body;
  },
  {
    name: "country_facts",
    description: "Facts about a country: capital, population, languages and currency.",
    schema: z.object({ country: z.string().describe("Country name, such as Portugal") }),
  },
);

const exchangeRate = tool(
  async ({ amount, from, to }) => {
    const q = new URLSearchParams({ amount: String(amount), from, to });
    return fetchText(`${ratesURL}/v1/latest?${q}`);
  },
  {
    name: "exchange_rate",
    description: "Converts an amount of money from one currency to another at today's exchange rate.",
    schema: z.object({
      amount: z.number().describe("The amount of money to convert"),
      from: z.enum(["EUR", "USD", "GBP", "JPY", "CHF"]).describe("The currency to convert from"),
      to: z.enum(["EUR", "USD", "GBP", "JPY", "CHF"]).describe("The currency to convert to"),
    }),
  },
);

const TOOLS = [countryFacts, exchangeRate];
const byName = Object.fromEntries(TOOLS.map((t) => [t.name, t]));

/**
 * Asks the model once: streamed chunks concatenated as LangChain does, or one
 * call.
 * @param {ReturnType<ChatOpenAI["bindTools"]>} model
 * @param {import("@langchain/core/messages").BaseMessage[]} messages
 * @param {boolean} streaming
 */
async function ask(model, messages, streaming) {
  if (!streaming) {
    return model.invoke(messages);
  }
  let whole;
  for await (const chunk of await model.stream(messages)) {
    whole = whole === undefined ? chunk : concat(whole, chunk);
  }
  return whole;
}

/**
 * Answers one user message: LangChain's tool-calling loop.
 * @param {ReturnType<ChatOpenAI["bindTools"]>} model
 * @param {{now: string, streaming: boolean}} cfg
 * @param {string} input
 */
async function answer(model, cfg, input) {
  /** @type {import("@langchain/core/messages").BaseMessage[]} */
  const messages = [new SystemMessage(`${SYSTEM_PROMPT} Today is ${cfg.now.slice(0, 10)}.`), new HumanMessage(input)];
  /** @type {string[]} */
  const called = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const msg = await ask(model, messages, cfg.streaming);
    const calls = msg.tool_calls ?? [];
    if (calls.length === 0) {
      return { text: typeof msg.content === "string" ? msg.content : JSON.stringify(msg.content), called };
    }
    messages.push(new AIMessage({ content: msg.content, tool_calls: calls }));
    for (const call of calls) {
      called.push(call.name);
      const t = byName[call.name];
      const content = t ? String(await t.invoke(call.args)) : JSON.stringify({ error: `no tool called ${call.name}` });
      messages.push(new ToolMessage({ content, tool_call_id: call.id ?? "" }));
    }
  }
  return { text: "I could not finish: too many tool calls.", called };
}

async function main() {
  const streaming = process.env.TESTBED_STREAM === "true";
  const chat = new ChatOpenAI({
    model: process.env.TESTBED_MODEL || "gpt-4.1-mini",
    temperature: 0,
    maxRetries: 0,
    timeout: 30_000,
    streaming,
    // The token usage of a stream comes from the API (stream_options), so
    // LangChain never counts tokens itself (which would fetch a tokenizer).
    streamUsage: true,
    configuration: { baseURL: process.env.OPENAI_BASE_URL },
  });
  const model = chat.bindTools(TOOLS);
  const cfg = { now: process.env.TESTBED_NOW || new Date().toISOString(), streaming };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const turn = JSON.parse(line);
    let reply;
    try {
      const { text, called } = await answer(model, cfg, turn.input);
      const route = called.length > 0 ? { mode: "tool", tool: called[0] } : { mode: "answer" };
      reply = { text, notes: [{ key: "route", value: route }] };
    } catch (err) {
      process.stderr.write(`langchain-ts: ${err instanceof Error ? err.stack : err}\n`);
      reply = { text: `error: ${err instanceof Error ? err.message : err}` };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}

await main();
