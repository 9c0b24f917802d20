/* Shared by networks/vta_*.c only: the float CPU parameters of the VTA resnet. */
#ifndef AT_NETWORKS_VTA_INTERNAL_H
#define AT_NETWORKS_VTA_INTERNAL_H

#include "networks/vta.h"

/* Stem conv 7x7/2 weights [64][3][7][7] (BN folded; *bias [64]) and the image size; borrowed. */
const float *at_net_vta_stem_params(const at_net_vta *n, const float **bias, int64_t *hw);
/* Dense weights [classes][512] and *bias [classes]; borrowed. */
const float *at_net_vta_dense_params(const at_net_vta *n, const float **bias);

#endif
