-- Who did an admin action: the admin API (bearer token) or a console session.
alter table admin_audit add column actor text;

-- Console sessions. The cookie carries a random id, signed; the row is what makes a sign-out final on
-- every instance (a signed cookie alone would stay valid until it expires). The id is stored hashed,
-- so these rows cannot be turned back into cookies.
create table console_sessions (
    id_hash      text        primary key,
    label        text        not null,
    client       text,
    started_at   timestamptz not null default now(),
    expires_at   timestamptz not null,
    ended_at     timestamptz
);
create index console_sessions_expires_ix on console_sessions (expires_at);
