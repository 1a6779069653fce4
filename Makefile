# Benchmarks (see BENCHMARKS.md). Each target prints tables and writes bench/results/<name>.json.
PY ?= .venv/bin/python

.PHONY: bench bench-ingest bench-profile bench-query bench-cold bench-cuts bench-quality bench-fusion bench-enrich bench-scaling bench-cluster benchmarks-md

bench:            ## everything, then BENCHMARKS.md's tables (~60-80 min on 2 cores)
	bash bench/run_all.sh

bench-ingest:     ## full ingest of ../shared/eval/corpus into a fresh dir, per stage (~10 min)
	$(PY) -m bench ingest

bench-profile:    ## py-spy profile of the slowest ingest stage
	$(PY) -m bench profile_ingest

bench-query:      ## warm p50/p95 at corpus size, 20k, 200k; rank_bm25; cold ask
	$(PY) -m bench query

bench-cold:       ## only the cold `ask --no-llm` part (~1-2 min)
	$(PY) -m bench query --only-cold

bench-cuts:       ## prototypes of the cold-start cuts (USE caches, numpy vector search), ~1 min
	$(PY) -m bench prototypes.cold_cuts

bench-quality:    ## hit@k / MRR: ours vs TF-IDF and rank_bm25 baselines, enrichment on/off
	$(PY) -m bench quality

bench-fusion:     ## can vectors beat BM25? RRF/linear/gated fusion, USE and e5-small re-scoring (~6 min)
	$(PY) -m bench fusion --e5

bench-enrich:     ## enrichment off / extractive / LLM (packaged 1.5B) on a dev sub-corpus (~50 min; not in `bench`)
	$(PY) -m bench enrich

bench-scaling:    ## 1x/4x/16x corpus: index and query time, bench/results/scaling.png
	$(PY) -m bench scaling

bench-cluster:    ## parse the corpus with the local pool and a Dask cluster on 127.0.0.1; per-task overhead (not in `bench`)
	$(PY) -m bench cluster

benchmarks-md:    ## regenerate the generated tables in BENCHMARKS.md from bench/results/*.json
	$(PY) -m bench reports.benchmarks_md
