// Feeds the compiled plugin (path in $PLUGIN_JS) a fake opencode: a shell
// that records its commands and a messages array.
import { test } from "node:test"
import assert from "node:assert/strict"

const { FlowdeckPlugin } = await import(process.env.PLUGIN_JS)

// fakeShell stands in for Bun's $: arrays interpolate as separate arguments;
// a call's working directory (.cwd) is recorded as "cwd=DIR" before its argv.
function fakeShell(calls, hud) {
  return (strings, ...values) => {
    const argv = []
    strings.forEach((s, i) => {
      argv.push(...s.split(/\s+/).filter(Boolean))
      if (i < values.length) argv.push(...[values[i]].flat().map(String))
    })
    calls.push(argv)
    const p = {
      cwd: (dir) => {
        argv.unshift("cwd=" + dir)
        return p
      },
      quiet: () => p,
      nothrow: () => p,
      text: async () => (argv.includes("hud") ? hud.text : ""),
    }
    return p
  }
}

const msg = (id, role, text) => ({
  info: { id, sessionID: "s1", role },
  parts: [{ id: id + "-p", sessionID: "s1", messageID: id, type: "text", text }],
})

const hudParts = (messages) =>
  messages.flatMap((m) => m.parts).filter((p) => p.type === "text" && p.text.startsWith("<flowdeck-hud>"))

test("exactly one fresh HUD after two calls", async () => {
  const calls = []
  const hud = { text: "flowdeck: goal one\nnext: flowdeck flow run start\n" }
  const hooks = await FlowdeckPlugin({ $: fakeShell(calls, hud), directory: "/repo", worktree: "/repo", client: {}, project: {} })
  const output = { messages: [msg("m1", "user", "plan it"), msg("m2", "assistant", "ok"), msg("m3", "user", "go on")] }
  await hooks["experimental.chat.messages.transform"]({}, output)
  hud.text = "flowdeck: goal two\nnext: flowdeck flow status\n"
  output.messages.push(msg("m4", "assistant", "done"), msg("m5", "user", "next"))
  await hooks["experimental.chat.messages.transform"]({}, output)

  const found = hudParts(output.messages)
  assert.equal(found.length, 1)
  assert.match(found[0].text, /goal two/)
  assert.equal(output.messages[4].parts[0], found[0], "the HUD leads the latest user message")
  assert.equal(output.messages[4].parts[1].text, "next", "the prompt itself is kept")
  assert.deepEqual(calls[0], ["cwd=/repo", "flowdeck", "hud"], "flowdeck runs in opencode's directory, never with --dir")
})

test("session.idle is recorded, other events are not", async () => {
  const calls = []
  const hooks = await FlowdeckPlugin({ $: fakeShell(calls, { text: "" }), directory: "/repo", worktree: "/repo", client: {}, project: {} })
  await hooks.event({ event: { type: "session.updated", properties: {} } })
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } })
  assert.deepEqual(calls, [["cwd=/repo", "flowdeck", "agent-event", "idle", "--agent", "opencode"]])
})

test("no HUD when flowdeck prints nothing", async () => {
  const hooks = await FlowdeckPlugin({ $: fakeShell([], { text: "" }), directory: "/repo", worktree: "/repo", client: {}, project: {} })
  const output = { messages: [msg("m1", "user", "hi")] }
  await hooks["experimental.chat.messages.transform"]({}, output)
  assert.equal(hudParts(output.messages).length, 0)
})
