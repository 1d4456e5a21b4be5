// The part of @opencode-ai/plugin's types that flowdeck's generated plugin
// uses, declared from the package's documented shapes so that the plugin
// type-checks without installing opencode.
declare module "@opencode-ai/plugin" {
  export interface ShellPromise extends Promise<unknown> {
    quiet(): ShellPromise
    nothrow(): ShellPromise
    text(): Promise<string>
  }
  export type BunShell = (strings: TemplateStringsArray, ...expressions: unknown[]) => ShellPromise

  export interface UserMessage {
    id: string
    sessionID: string
    role: "user"
  }
  export interface AssistantMessage {
    id: string
    sessionID: string
    role: "assistant"
  }
  export type Message = UserMessage | AssistantMessage

  interface PartBase {
    id: string
    sessionID: string
    messageID: string
  }
  export interface TextPart extends PartBase {
    type: "text"
    text: string
    synthetic?: boolean
    ignored?: boolean
  }
  export interface OtherPart extends PartBase {
    type: "reasoning" | "file" | "tool" | "step-start" | "step-finish" | "snapshot" | "patch" | "agent" | "retry" | "compaction"
  }
  export type Part = TextPart | OtherPart

  export interface Event {
    type: string
    properties: Record<string, unknown>
  }

  export interface PluginInput {
    client: unknown
    project: unknown
    directory: string
    worktree: string
    $: BunShell
  }

  export interface Hooks {
    event?: (input: { event: Event }) => Promise<void>
    "experimental.chat.messages.transform"?: (
      input: {},
      output: { messages: { info: Message; parts: Part[] }[] },
    ) => Promise<void>
  }

  export type Plugin = (input: PluginInput) => Promise<Hooks>
}
