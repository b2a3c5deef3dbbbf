"""Evaluation of a training run: metrics over its rollouts, sampled comparisons, the HTML report.

The four questions every run must answer: do quality and reward improve steadily,
is a scorer being gamed, does the policy stay diverse, does it hold on new prompts;
and how consistently does it use the tools it was given.
"""
