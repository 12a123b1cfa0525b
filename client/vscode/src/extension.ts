/**
 * The extension's entry point (the manifest's `main`, bundled to dist/extension.js): the only
 * file that imports `vscode`. It hands the real API to the adapter; the type check of this file
 * (client/vscode/tsconfig.json) is what proves that the API fits the adapter's types.
 */
import * as vscode from 'vscode';
import { activateWith } from './adapter.js';

export function activate(context: vscode.ExtensionContext): void {
  activateWith<vscode.Uri, vscode.TreeItem>(vscode, context);
}

/** Everything is in context.subscriptions, which VS Code disposes. */
export function deactivate(): void {}
