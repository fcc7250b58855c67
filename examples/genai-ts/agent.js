// @ts-check
/**
 * genai-ts: the weather agent of weather-ts on Google's official Gen AI SDK
 * (`@google/genai`) and Gemini's Interactions API (`ai.interactions.create`),
 * written to be put under test with testbed (see README.md beside this file).
 *
 * It speaks testbed's JSON-lines contract (docs/external-agents.md): one
 * line per user turn on stdin, one reply line per turn on stdout. Each turn
 * runs a tool loop: the model may call get_weather or get_forecast (its
 * function_call steps), the agent fetches the forecast API named by
 * WEATHER_URL (Open-Meteo's shape) and sends each result back as a
 * function_result step, and the model answers. By default the server keeps
 * the conversation: each follow-up names the interaction it continues
 * (previous_interaction_id) and sends only the results. With the variant's
 * config {"store": false} nothing is stored and every call sends the whole
 * history of steps.
 *
 * Everything it reaches comes from its environment:
 *   GEMINI_BASE_URL, GEMINI_API_KEY  the Gemini endpoint (without /v1beta)
 *   TESTBED_MODEL                    the model name (default gemini-3.5-flash)
 *   TESTBED_STREAM                   "true": stream each interaction (server-sent events)
 *   TESTBED_VARIANT                  the variant's config as JSON ({"store": false}), or null
 *   WEATHER_URL                      the forecast API (default https://api.open-meteo.com)
 *   TESTBED_NOW                      "now" for the prompt (default: the clock)
 */
import { GoogleGenAI } from "@google/genai";
import { createInterface } from "node:readline";

const SYSTEM_PROMPT = [
  "You are a concise weather assistant.",
  "Use get_weather for current conditions and get_forecast for the coming days.",
  "Quote the numbers the tools return, with their units. If a tool fails, say so plainly.",
].join(" ");

/** Places the agent knows, with their coordinates (the API wants coordinates). */
const PLACES = {
  oslo: { name: "Oslo", latitude: 59.91, longitude: 10.75 },
  lima: { name: "Lima", latitude: -12.05, longitude: -77.04 },
  nairobi: { name: "Nairobi", latitude: -1.29, longitude: 36.82 },
  reykjavik: { name: "Reykjavik", latitude: 64.15, longitude: -21.94 },
  tokyo: { name: "Tokyo", latitude: 35.68, longitude: 139.69 },
};

const TOOLS = [
  {
    type: "function",
    name: "get_weather",
    description: "Current weather in a city: temperature, wind and humidity.",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", description: "City name, such as Oslo" },
        units: { type: "string", enum: ["celsius", "fahrenheit"] },
      },
      required: ["city"],
    },
  },
  {
    type: "function",
    name: "get_forecast",
    description: "Daily forecast for a city: highs, lows and precipitation.",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", description: "City name, such as Lima" },
        days: { type: "integer", minimum: 1, maximum: 7 },
      },
      required: ["city", "days"],
    },
  },
];

/** The most model calls of one turn: a model that keeps calling tools is stopped. */
const MAX_ROUNDS = 4;

/**
 * Runs one tool call against the forecast API and returns the tool message
 * content: the API's JSON, or a JSON error the model can read.
 * @param {string} base the API's base URL
 * @param {string} name the tool
 * @param {Record<string, any>} args its arguments
 * @returns {Promise<string>}
 */
async function runTool(base, name, args) {
  const place = PLACES[String(args.city ?? "").trim().toLowerCase()];
  if (!place) {
    return JSON.stringify({ error: `unknown city ${JSON.stringify(args.city)}; I know ${Object.values(PLACES).map((p) => p.name).join(", ")}` });
  }
  const q = new URLSearchParams({ latitude: String(place.latitude), longitude: String(place.longitude) });
  if (name === "get_weather") {
    q.set("current", "temperature_2m,relative_humidity_2m,wind_speed_10m");
    q.set("temperature_unit", args.units === "fahrenheit" ? "fahrenheit" : "celsius");
  } else if (name === "get_forecast") {
    q.set("daily", "temperature_2m_max,temperature_2m_min,precipitation_sum");
    q.set("forecast_days", String(Math.min(7, Math.max(1, Number(args.days) || 1))));
  } else {
    return JSON.stringify({ error: `no tool called ${name}` });
  }
  q.set("timezone", "auto");
  try {
    const res = await fetch(`${base}/v1/forecast?${q}`);
    const body = await res.text();
    if (!res.ok) {
      let reason = body.slice(0, 200);
      try {
        reason = JSON.parse(body).reason ?? reason;
      } catch {}
      return JSON.stringify({ error: `the weather service answered ${res.status}: ${reason}` });
    }
    return body;
  } catch (err) {
    return JSON.stringify({ error: `the weather service could not be reached: ${err instanceof Error ? err.message : err}` });
  }
}

/**
 * Creates one interaction, streamed or not, and returns its output steps
 * and id. A stream's events are put together here: step.start opens a
 * step, step.delta adds text or a piece of a call's arguments.
 * @param {GoogleGenAI} ai
 * @param {boolean} streaming
 * @param {Record<string, any>} params
 * @returns {Promise<{id: string, steps: any[]}>}
 */
async function create(ai, streaming, params) {
  if (!streaming) {
    const it = await ai.interactions.create(/** @type {any} */ (params));
    return { id: it.id, steps: it.steps ?? [] };
  }
  const stream = await ai.interactions.create(/** @type {any} */ ({ ...params, stream: true }));
  /** @type {any[]} */
  const steps = [];
  /** @type {string[]} */
  const args = [];
  let id = "";
  for await (const ev of /** @type {AsyncIterable<any>} */ (stream)) {
    if (ev.event_type === "interaction.created") id = ev.interaction.id;
    if (ev.event_type === "step.start") steps[ev.index] = { ...ev.step };
    if (ev.event_type === "step.delta" && ev.delta.type === "text") {
      const step = steps[ev.index];
      step.content = [...(step.content ?? []), { type: "text", text: ev.delta.text }];
    }
    if (ev.event_type === "step.delta" && ev.delta.type === "arguments_delta") {
      args[ev.index] = (args[ev.index] ?? "") + ev.delta.arguments;
    }
    if (ev.event_type === "error") throw new Error(ev.error?.message ?? "the stream failed");
  }
  args.forEach((a, i) => {
    if (a) steps[i].arguments = JSON.parse(a);
  });
  return { id, steps };
}

/** The text of a list of steps' model_output steps. @param {any[]} steps */
const textOf = (steps) =>
  steps
    .filter((s) => s.type === "model_output")
    .flatMap((s) => s.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");

/**
 * Answers one user message: the tool loop.
 * @param {GoogleGenAI} ai
 * @param {{model: string, base: string, now: string, streaming: boolean, store: boolean}} cfg
 * @param {string} input
 */
async function answer(ai, cfg, input) {
  const base = { model: cfg.model, system_instruction: `${SYSTEM_PROMPT} Today is ${cfg.now.slice(0, 10)}.`, tools: TOOLS, generation_config: { temperature: 0 } };
  /** @type {any[]} */
  let history = [{ type: "user_input", content: [{ type: "text", text: input }] }];
  /** @type {any} */
  let next = { ...base, input, store: cfg.store };
  /** @type {string[]} */
  const called = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { id, steps } = await create(ai, cfg.streaming, next);
    const calls = steps.filter((s) => s.type === "function_call");
    if (calls.length === 0) {
      return { text: textOf(steps), called };
    }
    /** @type {any[]} */
    const results = [];
    for (const call of calls) {
      called.push(call.name);
      results.push({ type: "function_result", call_id: call.id, name: call.name, result: await runTool(cfg.base, call.name, call.arguments ?? {}) });
    }
    history = [...history, ...steps, ...results];
    next = cfg.store ? { ...base, previous_interaction_id: id, input: results } : { ...base, input: history, store: false };
  }
  return { text: "I could not finish: too many tool calls.", called };
}

async function main() {
  const variant = JSON.parse(process.env.TESTBED_VARIANT || "null") ?? {};
  const baseUrl = process.env.GEMINI_BASE_URL;
  const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY, httpOptions: baseUrl ? { baseUrl } : undefined });
  const cfg = {
    model: process.env.TESTBED_MODEL || "gemini-3.5-flash",
    base: (process.env.WEATHER_URL || "https://api.open-meteo.com").replace(/\/$/, ""),
    now: process.env.TESTBED_NOW || new Date().toISOString(),
    streaming: process.env.TESTBED_STREAM === "true",
    store: variant.store !== false,
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const turn = JSON.parse(line);
    let reply;
    try {
      const { text, called } = await answer(ai, cfg, turn.input);
      const route = called.length > 0 ? { mode: "tool", tool: called[0] } : { mode: "answer" };
      reply = { text, notes: [{ key: "route", value: route }] };
    } catch (err) {
      // The turn fails with the reason; testbed shows it with the scenario.
      process.stderr.write(`genai-ts: ${err instanceof Error ? err.stack : err}\n`);
      reply = { text: `error: ${err instanceof Error ? err.message : err}` };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}

await main();
