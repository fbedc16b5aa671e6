"""`qascore serve`: a scoring server for training loops (FastAPI + uvicorn, `pip install 'qascore[serve]'`)."""

# Documented defaults (docs/scale.md); `qascore serve --help` shows them without importing FastAPI.
DEFAULT_MAX_BATCH = 64          # records per model call
DEFAULT_MAX_WAIT_S = 0.005      # how long a batch waits for company after its first request
DEFAULT_MAX_BODY = 1 << 20      # bytes per request (1 MiB)
DEFAULT_TIMEOUT_S = 60.0       # a request still scoring after this gets 504
BODY_TIMEOUT_S = 30.0          # seconds a request body may take to arrive, whole; then 408
TOKEN_ENV = "QASCORE_TOKEN"   # where --token is read from when not given on the command line
