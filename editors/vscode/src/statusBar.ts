/** The `harness.budget` status bar item (SPEC §10): shows the StatusModel, click → the trace. */
import * as vscode from "vscode";
import type { StatusModel } from "./statusModel";

export const STATUS_ITEM_ID = "harness.budget";
/** Reveals the waiting approval in the panel (registered by the extension, not contributed). */
export const SHOW_APPROVAL = "harness.showApproval";

export class BudgetItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(private readonly model: StatusModel) {
    this.item = vscode.window.createStatusBarItem(STATUS_ITEM_ID, vscode.StatusBarAlignment.Left, 50);
    this.item.name = "Harness Budget";
    this.item.command = "harness.showTrace";
    this.render();
    this.item.show();
  }

  render(): void {
    const view = this.model.view();
    this.item.text = view.text;
    this.item.command = view.approval ? SHOW_APPROVAL : "harness.showTrace";
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    this.item.color = view.warning ? new vscode.ThemeColor("statusBarItem.warningForeground") : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
