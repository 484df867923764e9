# The Sequence bot: a slim image, a non-root user, the SQLite database on the /data volume.
#   docker build -t sequence-bot .
#   docker run -d --name sequence-bot -e DISCORD_TOKEN=... -v sequence-data:/data sequence-bot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SEQUENCE_DATABASE=/data/sequence.db

# /app/data: with PostgreSQL (compose.yaml), the replay cache is data/replays in the working
# folder, which the bot's user must be able to write.
RUN useradd --no-log-init --create-home --uid 10001 --user-group sequence \
    && mkdir -p /data /app/data \
    && chown sequence:sequence /data /app/data

WORKDIR /app
# The locked dependencies first, in their own layer: a change to the code does not reinstall
# them. requirements.lock pins every package with its hashes (its header says how to refresh it);
# SimCord (the demo's [demo] extra) is not in it.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY render ./render
RUN pip install --no-cache-dir --no-deps --no-build-isolation .

USER 10001:10001
VOLUME ["/data"]

# Healthy while `run` is connected to Discord (it touches the heartbeat file every 30 s) and the
# settings and database are usable; `sequence-bot check` explains any failure.
HEALTHCHECK --interval=60s --timeout=15s --start-period=90s --retries=3 \
    CMD ["sequence-bot", "check", "--heartbeat", "/tmp/sequence-bot.heartbeat"]

CMD ["sequence-bot", "run", "--heartbeat", "/tmp/sequence-bot.heartbeat"]
