# companion-agent as a container: `docker build -t companion-agent .`, then
# `docker run -p 4111:4111 -e OPENAI_API_KEY=... -v companion-data:/app/data companion-agent`.
# Two stages: the build (all dependencies, `mastra build`) and a runtime image with only the built
# output, Debian's speech-to-text packages, and a non-root user.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install applies the dependency patches (postinstall): they must be there first
COPY patches ./patches
# npm install honours the lock, which holds every platform's optional packages (rollup's), so it leaves it unchanged.
RUN npm install --no-audit --no-fund
COPY . .
# `mastra build` bundles src/mastra into .mastra/output and installs the output's own dependencies there.
RUN npm run build

FROM node:24-bookworm-slim
# /stt transcribes on the machine: PocketSphinx with its US English model, ffmpeg to decode uploads.
# tini runs as PID 1: the kernel spares PID 1 every signal it has no handler for (a `docker stop` while Node
# loads), and reaps what the decoders' processes leave.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pocketsphinx pocketsphinx-en-us ffmpeg tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4111 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=build --chown=node:node /app/.mastra/output ./
# The LibSQL database (the default store) and, with TRACING=on, the traces: keep them on a volume.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 4111
# Liveness only (/health); point an orchestrator's readiness probe at /ready.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "index.mjs"]
