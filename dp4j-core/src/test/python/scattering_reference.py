#!/usr/bin/env python3
"""Reference values for dp4j's 2-D scattering transform (org.dp4j.features), in double precision with numpy.

Written from the formulas, not from the Java code:
  * Morlet wavelets (Bruna & Mallat 2013, Sec. 3.1; Oyallon & Mallat 2015, Sec. 2.1):
      gabor(u) = exp(-u' R D R^-1 u / (2 sigma^2) + i xi (u1 cos t + u2 sin t)) / (2 pi sigma^2 / s),
      D = diag(1, s^2), R the rotation by t, periodised over 5 x 5 copies of the M x N grid (u = grid index);
      psi = gabor_xi - K gabor_0 with K chosen so that sum(psi) = 0.
    Parameters of Kymatio's Scattering2D (the filters Tramer & Boneh 2021 used): psi_{j,theta} has
    sigma = 0.8 2^j, xi = 3 pi / (4 2^j), slant s = 4 / L, angle t = (L/2 - 1 - theta) pi / L;
    phi is the Gaussian with sigma = 0.8 2^(J-1), slant 1. Kymatio's normalisation constant uses 3.1415 for pi,
    so this reference does too. Filters are kept in the Fourier domain as the real part of their DFT.
  * Scattering of order 2 (Oyallon & Mallat 2015, Eq. 1-3): S0 = x * phi_J, S1 = |x * psi_{j1}| * phi_J,
    S2 = ||x * psi_{j1}| * psi_{j2}| * phi_J for j2 > j1, each sampled at 2^J, computed by circular convolution
    on the image padded by reflection to P = (floor((M + 2^J) / 2^J) + 1) 2^J, with the intermediate signals
    sampled at 2^{j} (subsampling in space = averaging the periodised spectrum), then cropped by one sample on
    each side. A filter applied to a signal sampled at 2^r is cropped to the frequency band that signal holds
    (see crop). Channel order: S0, then S1 by (j1, theta1), then S2 by (j1, theta1, j2, theta2).

Here every convolution is done with np.fft on the signal at its current resolution and sampled in space
afterwards (y[::k, ::k]): mathematically the Fourier-domain periodisation the Java code uses, computed differently.

Run:  python3 scattering_reference.py > ../resources/org/dp4j/features/scattering-reference.txt
"""
import numpy as np


def gabor(m, n, sigma, theta, xi, slant):
    c, s = np.cos(theta), np.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    curv = rot @ np.diag([1.0, slant * slant]) @ rot.T / (2 * sigma * sigma)
    out = np.zeros((m, n), complex)
    for ex in range(-2, 3):
        for ey in range(-2, 3):
            xx, yy = np.mgrid[ex * m:(ex + 1) * m, ey * n:(ey + 1) * n].astype(float)
            q = curv[0, 0] * xx * xx + (curv[0, 1] + curv[1, 0]) * xx * yy + curv[1, 1] * yy * yy
            out += np.exp(-q + 1j * xi * (xx * c + yy * s))
    return out / (2 * 3.1415 * sigma * sigma / slant)


def morlet(m, n, sigma, theta, xi, slant):
    wave = gabor(m, n, sigma, theta, xi, slant)
    envelope = gabor(m, n, sigma, theta, 0.0, slant)
    return wave - (wave.sum() / envelope.sum()) * envelope


def filters(p, J, L):
    psi = {}
    for j in range(J):
        for t in range(L):
            w = morlet(p, p, 0.8 * 2 ** j, (L // 2 - 1 - t) * np.pi / L, 0.75 * np.pi / 2 ** j, 4.0 / L)
            psi[(j, t)] = np.real(np.fft.fft2(w))
    phi = np.real(np.fft.fft2(gabor(p, p, 0.8 * 2 ** (J - 1), 0.0, 0.0, 1.0)))
    return psi, phi


def padded_size(m, J):
    return ((m + 2 ** J) // 2 ** J + 1) * 2 ** J


def crop(filt_hat, res):
    """The filter for signals sampled at 2^res: its DFT restricted to the signed frequencies
    [-P / 2^(res+1), P / 2^(res+1)) on both axes (the band a signal sampled at 2^res can hold), placed on the
    coarser DFT grid of size P / 2^res. Kymatio's filter bank crops the same band."""
    p = filt_hat.shape[0]
    q = p // 2 ** res
    half = q // 2
    signed = [f if f < p // 2 else f - p for f in range(p)]
    keep = [i for i, f in enumerate(signed) if -half <= f < half]
    target = [signed[i] % q for i in keep]
    out = np.zeros((q, q))
    out[np.ix_(target, target)] = filt_hat[np.ix_(keep, keep)]
    return out


def conv_sampled(x, filt_hat, res, step):
    """Circular convolution of x (sampled at 2^res) with the filter cropped to that resolution, then sampled
    every step samples in space (equivalently, the periodised spectrum is averaged)."""
    y = np.fft.ifft2(np.fft.fft2(x) * crop(filt_hat, res))
    return y[::step, ::step]


def scattering(img, J, L):
    m = img.shape[0]
    p = padded_size(m, J)
    top = (p - m) // 2
    x = np.pad(img, ((top, p - m - top), (top, p - m - top)), mode="reflect")
    psi, phi = filters(p, J, L)

    def low(u, res):  # (u * phi) for u sampled at 2^res, sampled at 2^J, cropped by one sample per side
        return np.real(conv_sampled(u, phi, res, 2 ** (J - res)))[1:-1, 1:-1]

    out = [low(x, 0)]
    first = {}
    for j1 in range(J):
        for t1 in range(L):
            first[(j1, t1)] = np.abs(conv_sampled(x, psi[(j1, t1)], 0, 2 ** j1))
            out.append(low(first[(j1, t1)], j1))
    for j1 in range(J):
        for t1 in range(L):
            for j2 in range(j1 + 1, J):
                for t2 in range(L):
                    u2 = np.abs(conv_sampled(first[(j1, t1)], psi[(j2, t2)], j1, 2 ** (j2 - j1)))
                    out.append(low(u2, j2))
    return np.stack(out)


def test_images():
    r, c = np.mgrid[0:28, 0:28].astype(float)
    blob = np.exp(-((r - 13.5) ** 2 + (c - 12.0) ** 2) / (2 * 6.0 ** 2)) * (1 + np.sin(0.7 * r + 0.3 * c)) / 2
    lcg = np.zeros(28 * 28)
    state = 12345
    for i in range(28 * 28):  # x <- (1103515245 x + 12345) mod 2^31, value x / 2^31
        state = (1103515245 * state + 12345) % (1 << 31)
        lcg[i] = state / float(1 << 31)
    return {"blob": blob, "lcg": lcg.reshape(28, 28)}


def littlewood_paley(psi, phi):
    """A(w) = |phi(w)|^2 + 1/2 sum_{j, theta} (|psi(w)|^2 + |psi(-w)|^2): the energy multiplier for real input."""
    total = phi ** 2
    for f in psi.values():
        flipped = np.roll(np.flip(f, (0, 1)), 1, (0, 1))  # f(-w) on the DFT grid
        total = total + 0.5 * (f ** 2 + flipped ** 2)
    return total


def main():
    J, L = 2, 8
    p = padded_size(28, J)
    psi, phi = filters(p, J, L)
    lp = littlewood_paley(psi, phi)
    print(f"# dp4j scattering reference: J={J} L={L} padded={p}; numpy {np.__version__}")
    print(f"lp_min {lp.min():.12g}")
    print(f"lp_max {lp.max():.12g}")
    for (j, t) in [(0, 0), (1, 5)]:
        print(f"psi {j} {t} " + " ".join(f"{v:.12g}" for v in psi[(j, t)].ravel()))
    print("phi " + " ".join(f"{v:.12g}" for v in phi.ravel()))
    for name, img in test_images().items():
        s = scattering(img, J, L)
        print(f"scattering {name} " + " ".join(f"{v:.10g}" for v in s.ravel()))


if __name__ == "__main__":
    main()
