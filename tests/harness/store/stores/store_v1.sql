PRAGMA user_version = 1;
BEGIN TRANSACTION;
CREATE TABLE context_events (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
CREATE TABLE edits (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        path TEXT NOT NULL,
        before BLOB,
        after BLOB NOT NULL,
        created_at TEXT NOT NULL
    );
INSERT INTO "edits" VALUES(1,1,1,'a.txt',NULL,X'00','t');
CREATE TABLE observations (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        ok INTEGER NOT NULL,
        text TEXT NOT NULL,
        content_hash TEXT
    );
CREATE TABLE policy_events (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        act TEXT NOT NULL,
        target TEXT NOT NULL,
        effect TEXT NOT NULL,
        rule TEXT,
        layer TEXT NOT NULL,
        allowed INTEGER NOT NULL,
        detail TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
CREATE TABLE provider_calls (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        total_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        usage_estimated INTEGER NOT NULL DEFAULT 0,
        latency_ms REAL NOT NULL,
        ttft_ms REAL,
        status INTEGER,
        finish_reason TEXT,
        failure TEXT,
        error TEXT,
        created_at TEXT NOT NULL
    );
CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        goal TEXT NOT NULL,
        workspace TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        contract TEXT NOT NULL,
        outcome TEXT,
        steps INTEGER NOT NULL DEFAULT 0,
        spent_tokens INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT
    );
INSERT INTO "runs" VALUES(1,'old goal','/w','scripted','m','{}','finished',1,140,NULL,'2026-01-01T00:00:00Z','2026-01-01T00:00:01Z');
CREATE TABLE steps (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        decision TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        prompt TEXT NOT NULL,
        tool_calls TEXT NOT NULL,
        result TEXT NOT NULL,
        effective_tokens INTEGER NOT NULL,
        est_tokens INTEGER NOT NULL,
        reported_prompt_tokens INTEGER,
        completion_tokens INTEGER,
        total_tokens INTEGER,
        carried INTEGER NOT NULL DEFAULT 0,
        stubbed INTEGER NOT NULL DEFAULT 0,
        reread INTEGER NOT NULL DEFAULT 0,
        recalled INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        PRIMARY KEY (run_id, step)
    );
INSERT INTO "steps" VALUES(1,1,'stop','','[]','[]','',24000,120,131,9,140,1,2,3,0,'2026-01-01T00:00:00Z','2026-01-01T00:00:01Z');
CREATE INDEX runs_workspace ON runs(workspace, id);
CREATE INDEX observations_run ON observations(run_id, step);
CREATE INDEX provider_calls_run ON provider_calls(run_id, step);
CREATE INDEX context_events_run ON context_events(run_id, step);
CREATE INDEX policy_events_run ON policy_events(run_id, step);
CREATE INDEX edits_run ON edits(run_id, id);
COMMIT;
