# tests/solvers_peer.py - the Python references of tests/test_solvers.c, run as a helper process.
#   lasso D.npy S.npy LMBDA: scikit-learn's Lasso (coordinate descent) on D w = s at
#     alpha = LMBDA / N (its objective is (1/2N) ||s - D w||^2 + alpha ||w||_1, sporco's BPDN's
#     divided by N), converged far past the tests' tolerance; prints "objective V", the BPDN
#     objective (1/2) ||s - D w||^2 + LMBDA ||w||_1 of its solution.
#   tv S.npy WEIGHT: scikit-image's denoise_tv_chambolle (isotropic TV over both axes of a 2-D
#     image, converged); prints "objective V", sporco's TVL2Denoise objective
#     (1/2) ||x - s||^2 + WEIGHT sum sqrt(gx^2 + gy^2) of its solution (forward differences, the
#     last one zero).
# Exits 2 with a message on bad arguments.
import sys
import numpy as np

def lasso(d_path, s_path, lmbda):
    from sklearn.linear_model import Lasso
    D = np.load(d_path)
    s = np.load(s_path).reshape(D.shape[0])
    n = D.shape[0]
    m = Lasso(alpha=lmbda / n, fit_intercept=False, tol=1e-14, max_iter=10000000)
    m.fit(D, s)
    w = m.coef_
    obj = 0.5 * np.sum((D @ w - s) ** 2) + lmbda * np.sum(np.abs(w))
    print('objective %.17g' % obj)

def tv_objective(x, s, weight):
    gx = np.zeros_like(x)
    gy = np.zeros_like(x)
    gx[:-1, :] = x[1:, :] - x[:-1, :]
    gy[:, :-1] = x[:, 1:] - x[:, :-1]
    return 0.5 * np.sum((x - s) ** 2) + weight * np.sum(np.sqrt(gx ** 2 + gy ** 2))

def tv(s_path, weight):
    from skimage.restoration import denoise_tv_chambolle
    s = np.load(s_path)
    x = denoise_tv_chambolle(s, weight=weight, eps=1e-12, max_num_iter=1000000, channel_axis=None)
    print('objective %.17g' % tv_objective(x, s, weight))

if __name__ == '__main__':
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == 'lasso':
        lasso(a[1], a[2], float(a[3]))
    elif len(a) == 3 and a[0] == 'tv':
        tv(a[1], float(a[2]))
    else:
        sys.stderr.write('usage: solvers_peer.py lasso D.npy S.npy LMBDA | tv S.npy WEIGHT\n')
        sys.exit(2)
