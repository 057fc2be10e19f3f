// Eigenvalues (and, if asked, eigenvectors) of a small symmetric matrix by cyclic Jacobi
// rotations, without allocation: the payload estimate's pseudo-inertia (4 x 4,
// payload_adaptation.cpp) and the pose follower's J J^T (6 x 6, pose_follower.cpp).
#ifndef ROBODYN_CONTROLLERS__SYMMETRIC_EIGEN_HPP_
#define ROBODYN_CONTROLLERS__SYMMETRIC_EIGEN_HPP_

#include <cmath>

namespace robodyn_controllers
{

// a becomes diagonal (its eigenvalues); v, when not null, the eigenvectors in columns.
// Stops when the off-diagonal part is below 1e-36 of the whole (squared norms), on a NaN,
// or after 50 sweeps.
template<int N>
void symmetric_eigen(double (&a)[N][N], double (*v)[N] = nullptr) noexcept
{
  for (int r = 0; v != nullptr && r < N; ++r) {
    for (int c = 0; c < N; ++c) {v[r][c] = r == c ? 1.0 : 0.0;}
  }
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0.0, all = 0.0;
    for (int r = 0; r < N; ++r) {
      for (int c = 0; c < N; ++c) {
        all += a[r][c] * a[r][c];
        if (r != c) {off += a[r][c] * a[r][c];}
      }
    }
    if (!(off > 1e-36 * all)) {return;}  // also ends on a NaN
    for (int p = 0; p < N - 1; ++p) {
      for (int q = p + 1; q < N; ++q) {
        if (a[p][q] == 0.0) {continue;}
        const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) /
          (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < N; ++k) {  // A := A G (columns p, q), then G^T A (rows)
          const double kp = a[k][p], kq = a[k][q];
          a[k][p] = c * kp - s * kq;
          a[k][q] = s * kp + c * kq;
        }
        for (int k = 0; k < N; ++k) {
          const double pk = a[p][k], qk = a[q][k];
          a[p][k] = c * pk - s * qk;
          a[q][k] = s * pk + c * qk;
          if (v != nullptr) {
            const double vp = v[k][p], vq = v[k][q];
            v[k][p] = c * vp - s * vq;
            v[k][q] = s * vp + c * vq;
          }
        }
      }
    }
  }
}

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__SYMMETRIC_EIGEN_HPP_
