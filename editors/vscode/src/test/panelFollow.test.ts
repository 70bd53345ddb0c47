import assert from "node:assert/strict";
import { test } from "node:test";
import { Follower } from "../panelFollow";

test("following survives a layout change after the redraw: the end is scrolled to once more", () => {
  const f = new Follower();
  // At the end before the run's last redraw.
  f.scrolled({ scrollTop: 500, scrollHeight: 900, clientHeight: 400 });
  f.contentChanged();
  // The redraw: the conversation grew; the decision comes after layout.
  assert.equal(f.afterLayout({ scrollTop: 500, scrollHeight: 1000, clientHeight: 400 }), 600);
  // Then the Changes list appears below and shrinks the area by 83 px (the case).
  assert.equal(f.afterLayout({ scrollTop: 600, scrollHeight: 1000, clientHeight: 317 }), 683);
  // The scroll event our own scrolling causes does not count as the user's.
  f.scrolled({ scrollTop: 683, scrollHeight: 1000, clientHeight: 317 });
  assert.equal(f.following, true);
  assert.equal(f.newActivity, false);
});

test("scrolled up: no jump, new activity is flagged; sending follows again", () => {
  const f = new Follower();
  f.scrolled({ scrollTop: 100, scrollHeight: 1000, clientHeight: 400 });
  assert.equal(f.following, false);
  f.contentChanged();
  assert.equal(f.afterLayout({ scrollTop: 100, scrollHeight: 1200, clientHeight: 317 }), undefined);
  assert.equal(f.newActivity, true);
  f.jumpToEnd();
  assert.equal(f.afterLayout({ scrollTop: 100, scrollHeight: 1200, clientHeight: 317 }), 883);
  assert.equal(f.newActivity, false);
});

test("the user scrolling back to the end follows again and clears the button", () => {
  const f = new Follower();
  f.scrolled({ scrollTop: 0, scrollHeight: 1000, clientHeight: 400 });
  f.contentChanged();
  f.scrolled({ scrollTop: 590, scrollHeight: 1000, clientHeight: 400 });
  assert.equal(f.following, true);
  assert.equal(f.newActivity, false);
  assert.equal(f.afterLayout({ scrollTop: 600, scrollHeight: 1000, clientHeight: 400 }), undefined);
});
