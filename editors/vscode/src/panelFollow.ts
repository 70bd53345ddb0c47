/**
 * Whether the conversation follows its end (issue 36): the decision is a state the user's
 * own scrolling sets, not a measurement taken before a redraw — so when the area shrinks
 * after the redraw (the Changes list appears below it), the end is scrolled to again once
 * the layout settled. A send jumps to the user's new message; while the user reads higher
 * up, new activity only lights the "↓ new activity" button. Pure: the webview feeds it
 * the scroll metrics.
 */

export interface Metrics {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

/** Closer to the end than this (px) counts as at the end. */
export const AT_END_PX = 30;

export function distanceToEnd(m: Metrics): number {
  return m.scrollHeight - m.scrollTop - m.clientHeight;
}

export class Follower {
  /** The user has not scrolled away from the end. */
  following = true;
  /** Content arrived while the user was scrolled away. */
  newActivity = false;
  /** Where we scrolled last: a scroll event landing there is ours, not the user's. */
  private ours: number | undefined;

  /** A scroll event: the user's unless it is where we just scrolled to. */
  scrolled(m: Metrics): void {
    if (this.ours !== undefined && Math.abs(m.scrollTop - this.ours) < 2) return;
    this.ours = undefined;
    this.following = distanceToEnd(m) < AT_END_PX;
    if (this.following) this.newActivity = false;
  }

  /** The content changed (a redraw). */
  contentChanged(): void {
    if (!this.following) this.newActivity = true;
  }

  /** After layout (every resize of the area or its content): the scrollTop to set, if any. */
  afterLayout(m: Metrics): number | undefined {
    if (!this.following) return undefined;
    const end = Math.max(0, m.scrollHeight - m.clientHeight);
    if (Math.abs(m.scrollTop - end) < 1) return undefined;
    this.ours = end;
    return end;
  }

  /** The user sent a message, or pressed "↓ new activity": follow the end again. */
  jumpToEnd(): void {
    this.following = true;
    this.newActivity = false;
  }
}
