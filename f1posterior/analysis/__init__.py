"""Level 4: questions asked of posteriors: comparison and ranking of classifiers, prior
sensitivity, frequentist intervals, thresholds."""
