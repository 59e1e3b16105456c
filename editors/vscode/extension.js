// Starts `fdc lsp` (stdio) for .pddl files and instruction files (.j2). See docs/editor.md.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("fdc").get("command");
  client = new LanguageClient(
    "fdc",
    "fdc",
    { command, args },
    {
      documentSelector: [
        { scheme: "file", language: "fdc-pddl" },
        { scheme: "file", language: "fdc-instructions" },
      ],
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{pddl,j2}"),
      },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
