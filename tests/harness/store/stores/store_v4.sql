PRAGMA user_version = 4;
BEGIN TRANSACTION;
CREATE TABLE context_events (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
INSERT INTO "context_events" VALUES(1,1,1,'assembled','{"carried": 1}','2026-12-01T14:38:51.823Z');
INSERT INTO "context_events" VALUES(2,NULL,NULL,'memory_write','{"scope": "workspace", "scopeKey": "/w", "key": "style", "value": "tabs never", "kind": "decision", "pinned": true, "chars": 10, "replaced": false, "truncated": false, "originalChars": 10, "similar": [], "by": "operator"}','2026-12-01T14:38:51.824Z');
CREATE TABLE edits (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        path TEXT NOT NULL,
        before BLOB,
        after BLOB NOT NULL,
        created_at TEXT NOT NULL
    , committed INTEGER NOT NULL DEFAULT 1, new_dirs TEXT);
INSERT INTO "edits" VALUES(1,1,1,'a.py',X'6F6C64',X'6E6577','2026-12-01T14:38:51.822Z',1,NULL);
CREATE TABLE memory (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('fact', 'decision')),
        pinned INTEGER NOT NULL DEFAULT 0,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        step INTEGER,
        seq INTEGER NOT NULL,
        recalls INTEGER NOT NULL DEFAULT 0,
        recall_runs INTEGER NOT NULL DEFAULT 0,
        last_recall INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (scope, key)
    );
INSERT INTO "memory" VALUES(1,'/w','build','make test runs everything','fact',0,1,1,1,1,1,1,'2026-12-01T14:38:51.823Z','2026-12-01T14:38:51.823Z');
INSERT INTO "memory" VALUES(2,'/w','style','tabs never','decision',1,NULL,NULL,2,0,0,0,'2026-12-01T14:38:51.824Z','2026-12-01T14:38:51.824Z');
CREATE TABLE memory_recalls (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        note_id INTEGER REFERENCES memory(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL
    );
INSERT INTO "memory_recalls" VALUES(1,2,1,'/w','build',1,'2026-12-01T14:38:51.825Z');
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
INSERT INTO "observations" VALUES(1,1,1,0,'read_file','a.py',1,'[read a.py]
old','h');
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
INSERT INTO "policy_events" VALUES(1,1,1,'write','.env','deny','.env','builtin',0,'no','2026-12-01T14:38:51.823Z');
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
INSERT INTO "provider_calls" VALUES(1,1,1,1,'scripted','m',131,9,140,64,NULL,0,3.5,1.25,200,'tool_calls',NULL,NULL,'2026-12-01T14:38:51.822Z');
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
    , owner_pid INTEGER, owner_started TEXT, owner_host TEXT);
INSERT INTO "runs" VALUES(1,'fix it','/w','scripted','m','{}','finished',1,140,NULL,'2026-12-01T14:38:51.822Z','2026-12-01T14:38:51.824Z',NULL,NULL,NULL);
INSERT INTO "runs" VALUES(2,'again','/w','scripted','m','{}','finished',1,50,NULL,'2026-12-01T14:38:51.824Z','2026-12-01T14:38:51.825Z',NULL,NULL,NULL);
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
        finished_at TEXT NOT NULL, prefix_chars INTEGER,
        PRIMARY KEY (run_id, step)
    );
INSERT INTO "steps" VALUES(1,1,'read_file a.py; write_file a.py','reading','[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]','[{"name": "read_file", "arguments": {"path": "a.py"}}]','[read a.py]
old',24000,120,131,9,140,1,2,3,1,'2026-01-01T00:00:00Z','2026-12-01T14:38:51.822Z',77);
INSERT INTO "steps" VALUES(2,1,'stop','done','[]','[]','',24000,50,NULL,NULL,NULL,0,0,0,1,'2026-01-01T00:01:00Z','2026-12-01T14:38:51.824Z',NULL);
CREATE INDEX runs_workspace ON runs(workspace, id);
CREATE INDEX observations_run ON observations(run_id, step);
CREATE INDEX provider_calls_run ON provider_calls(run_id, step);
CREATE INDEX context_events_run ON context_events(run_id, step);
CREATE INDEX policy_events_run ON policy_events(run_id, step);
CREATE INDEX edits_run ON edits(run_id, id);
CREATE INDEX memory_seq ON memory(seq);
CREATE INDEX memory_evict ON memory(scope, pinned, recall_runs, last_recall, seq);
CREATE INDEX memory_recalls_run ON memory_recalls(run_id, step);
CREATE INDEX memory_recalls_note ON memory_recalls(note_id, run_id);
CREATE INDEX memory_recalls_key ON memory_recalls(scope, key);
CREATE INDEX runs_unfinished ON runs(id) WHERE outcome IS NULL;
CREATE INDEX edits_announced ON edits(run_id, step, path) WHERE committed = 0;
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('memory',2);
COMMIT;
