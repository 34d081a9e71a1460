import json, glob, os
HELD = {"esg/freenet_annual_report_2023.pdf", "esg/mlp_sustainability_report_2023.pdf", "esg/polytec_annual_report_2023.pdf",
        "esg/viscom_annual_report_2023.pdf", "papers/molecular_explanations_perspective.pdf", "papers/multilexsum_2206.10883.pdf",
        "papers/paper_plain_2203.00130.pdf", "financebench-more/COCACOLA_2017_10K.pdf", "financebench-more/KRAFTHEINZ_2019_10K.pdf",
        "financebench-more/NETFLIX_2017_10K.pdf", "esg/merck_kgaa_sustainability_report_2023.pdf", "esg/mtu_aero_engines_annual_report_2023.pdf"}
out = "/work/main/bench/questions/figures35"
figs, qs = [], []
for h in sorted(glob.glob("/work/labels35/h*/")):
    for name, acc in (("figures.jsonl", figs), ("questions.jsonl", qs)):
        p = os.path.join(h, name)
        if os.path.exists(p):
            for ln in open(p):
                if ln.strip():
                    d = json.loads(ln); d["split"] = "held" if d["doc"] in HELD else "tune"; acc.append(d)
for name, acc in (("figures.jsonl", figs), ("questions.jsonl", qs)):
    with open(os.path.join(out, name), "w") as f:
        for d in acc: f.write(json.dumps(d, ensure_ascii=False) + "\n")
from collections import Counter
print(len(figs), Counter(d["split"] for d in figs), Counter((d["split"], d["kind"]) for d in figs if d["kind"]=="chart"), len(qs), Counter(d["split"] for d in qs))
