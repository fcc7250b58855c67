// @ts-check
/**
 * weather-ts: a small weather agent on the official `openai` npm SDK, written
 * to be put under test with testbed (see README.md beside this file).
 *
 * It speaks testbed's JSON-lines contract (docs/external-agents.md): one
 * line per user turn on stdin, one reply line per turn on stdout. Each turn
 * runs a tool loop: the model may call get_weather or get_forecast, the
 * agent fetches the forecast API named by WEATHER_URL (Open-Meteo's shape),
 * hands the result back as a tool message, and the model answers.
 *
 * Everything it reaches comes from its environment, so the same code runs
 * against a real model and API, or against testbed's proxy session:
 *   OPENAI_BASE_URL, OPENAI_API_KEY  read by the openai SDK itself
 *   TESTBED_MODEL                    the model name (default gpt-4.1-mini)
 *   WEATHER_URL                      the forecast API (default https://api.open-meteo.com)
 *   TESTBED_NOW                      "now" for the prompt (default: the clock)
 */
import OpenAI from "openai";
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

/** @type {import("openai/resources/chat/completions").ChatCompletionTool[]} */
const TOOLS = [
  {
    type: "function",
    function: {
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
  },
  {
    type: "function",
    function: {
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
 * Answers one user message: the tool loop.
 * @param {OpenAI} client
 * @param {{model: string, base: string, now: string}} cfg
 * @param {string} input
 */
async function answer(client, cfg, input) {
  /** @type {import("openai/resources/chat/completions").ChatCompletionMessageParam[]} */
  const messages = [
    { role: "system", content: `${SYSTEM_PROMPT} Today is ${cfg.now.slice(0, 10)}.` },
    { role: "user", content: input },
  ];
  /** @type {string[]} */
  const called = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const res = await client.chat.completions.create({ model: cfg.model, messages, tools: TOOLS, temperature: 0 });
    const msg = res.choices[0].message;
    const calls = (msg.tool_calls ?? []).filter((c) => c.type === "function");
    if (calls.length === 0) {
      return { text: msg.content ?? "", called };
    }
    messages.push({ role: "assistant", content: msg.content ?? null, tool_calls: calls });
    for (const call of calls) {
      let args = {};
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {}
      called.push(call.function.name);
      messages.push({ role: "tool", tool_call_id: call.id, content: await runTool(cfg.base, call.function.name, args) });
    }
  }
  return { text: "I could not finish: too many tool calls.", called };
}

async function main() {
  const client = new OpenAI({ maxRetries: 0, timeout: 30_000 });
  const cfg = {
    model: process.env.TESTBED_MODEL || "gpt-4.1-mini",
    base: (process.env.WEATHER_URL || "https://api.open-meteo.com").replace(/\/$/, ""),
    now: process.env.TESTBED_NOW || new Date().toISOString(),
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const turn = JSON.parse(line);
    let reply;
    try {
      const { text, called } = await answer(client, cfg, turn.input);
      const route = called.length > 0 ? { mode: "tool", tool: called[0] } : { mode: "answer" };
      reply = { text, notes: [{ key: "route", value: route }] };
    } catch (err) {
      // The turn fails with the reason; testbed shows it with the scenario.
      process.stderr.write(`weather-ts: ${err instanceof Error ? err.stack : err}\n`);
      reply = { text: `error: ${err instanceof Error ? err.message : err}` };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}

await main();
