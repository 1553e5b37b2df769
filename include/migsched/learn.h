/* learn.h: small neural networks on OpenBLAS (MLP with policy and value heads), masked
 * categorical policies, Adam, PPO over vectorised environments, a dueling double DQN, model
 * files, and the learned scheduler of paper 001: the headers of each, gathered. */
#ifndef MIGSCHED_LEARN_H
#define MIGSCHED_LEARN_H

#include "migsched/learn_mlp.h"
#include "migsched/learn_ppo.h"
#include "migsched/learn_model.h"
#include "migsched/learn_dqn.h"
#include "migsched/learn_train.h"
#include "migsched/learn_progress.h"
#include "migsched/learn_rollout.h"
#include "migsched/learn_sched.h"

#endif
