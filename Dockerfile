# linksync in a container: for scheduled runs (a Kubernetes CronJob, a cron host, a CI
# runner) that do not install Python. See docs/links-as-code.md, "In a container".
#
#   docker build -t linksync .
#   docker run --rm -v "$PWD/links:/work/links:ro" -v linksync-state:/work/.linksync \
#     -e LINKSYNC_BASE_URL -e LINKSYNC_API_KEY linksync plan links/
#
# The key comes from the environment (or --api-key-file on a mounted secret), never
# from the image or the command line. /work/.linksync holds the run journals (runs/)
# and the locks (.linksync/lock, state/): keep it on a volume so runs that overlap are
# refused and journals last.

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
# LINKSYNC_STATE_DIR: linksync's state folder (the run locks keyed on the target), on
# the same volume as the journals.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LINKSYNC_STATE_DIR=/work/.linksync/state
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl && rm -rf /wheels
RUN groupadd --gid 10001 linksync \
    && useradd --uid 10001 --gid 10001 --create-home --shell /usr/sbin/nologin linksync \
    && mkdir -p /work/.linksync/runs /work/.linksync/state \
    && chown -R 10001:10001 /work
WORKDIR /work
USER 10001:10001
VOLUME ["/work/.linksync"]
ENTRYPOINT ["linksync"]
CMD ["--help"]
